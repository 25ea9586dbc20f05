-- Orders: what a buyer bought, at which price, and what they owe.
-- Amounts are numeric(12,2) and the table itself refuses an order whose sums do not add up,
-- whatever client wrote it. Only service_role (the create-order function) reads or writes here.

create type public.order_status as enum (
  'pending', 'payment_pending', 'paid', 'processing', 'shipped', 'delivered', 'cancelled'
);

create table public.orders (
  id uuid primary key default gen_random_uuid(),
  store_id uuid not null references public.stores (id) on delete restrict,
  -- ORD-<year>-<sequence>; set by create_order as its last step, so the counter row is locked briefly
  order_number text check (order_number ~ '^ORD-[0-9]{4}-[0-9]{6,}$'),
  order_year integer not null check (order_year between 2000 and 9999),
  order_sequence integer check (order_sequence > 0),
  status public.order_status not null default 'payment_pending',
  payment_method text not null check (payment_method in ('upi_direct', 'gateway')),
  gateway_method text check (gateway_method in ('card', 'upi', 'wallet')),
  payment_proof_url text check (length(payment_proof_url) <= 2048),
  buyer_email text not null check (length(buyer_email) between 3 and 254),
  buyer_name text not null check (length(buyer_name) between 1 and 200),
  buyer_phone text not null check (buyer_phone ~ '^\+[0-9]{7,15}$'),
  shipping_address jsonb not null check (jsonb_typeof(shipping_address) = 'object'),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  total_amount numeric(12, 2) not null check (total_amount >= 0),
  checkout_fee numeric(12, 2) not null check (checkout_fee >= 0),
  final_amount numeric(12, 2) not null check (final_amount >= 0),
  client_ip text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint orders_final_is_total_plus_fee check (final_amount = total_amount + checkout_fee),
  constraint orders_gateway_method_only_for_gateway
    check ((payment_method = 'gateway') = (gateway_method is not null)),
  constraint orders_upi_direct_has_proof
    check (payment_method <> 'upi_direct' or payment_proof_url is not null),
  constraint orders_number_with_sequence check ((order_number is null) = (order_sequence is null)),
  constraint orders_store_year_sequence_unique unique (store_id, order_year, order_sequence),
  -- numbers count per store: ORD-2026-000001 exists once in each store
  constraint orders_store_number_unique unique (store_id, order_number)
);
create index orders_store_id_created_at_idx on public.orders (store_id, created_at desc);
create index orders_buyer_email_idx on public.orders (lower(buyer_email));

create table public.order_items (
  id uuid primary key default gen_random_uuid(),
  order_id uuid not null references public.orders (id) on delete cascade,
  position integer not null check (position >= 0),
  product_id uuid not null references public.products (id) on delete restrict,
  variant_id uuid references public.product_variants (id) on delete restrict,
  -- names as sold: a later rename in the catalogue does not rewrite history
  product_name text not null,
  variant_name text,
  quantity integer not null check (quantity > 0 and quantity <= 10000),
  unit_price numeric(12, 2) not null check (unit_price >= 0),
  line_total numeric(14, 2) not null,
  created_at timestamptz not null default now(),
  constraint order_items_line_total check (line_total = unit_price * quantity),
  constraint order_items_position_unique unique (order_id, position)
);
create index order_items_product_id_idx on public.order_items (product_id);
create index order_items_variant_id_idx on public.order_items (variant_id) where variant_id is not null;

-- One row per store and calendar year (UTC); last_sequence is the last number handed out.
-- Numbers come from an upsert on this row inside the order's transaction, so a rolled-back
-- order gives its number back and the sequence has no gaps.
create table public.order_counters (
  store_id uuid not null references public.stores (id) on delete restrict,
  year integer not null check (year between 2000 and 9999),
  last_sequence integer not null check (last_sequence > 0),
  updated_at timestamptz not null default now(),
  primary key (store_id, year)
);

create trigger orders_touch_updated_at before update on public.orders
  for each row execute function public.touch_updated_at();

alter table public.orders enable row level security;
alter table public.order_items enable row level security;
alter table public.order_counters enable row level security;

-- No policies for anon or authenticated: with RLS on and no grants, they see and write nothing.
revoke all on public.orders, public.order_items, public.order_counters from anon, authenticated;
grant all on public.orders, public.order_items, public.order_counters to service_role;
