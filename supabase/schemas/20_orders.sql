-- Orders: what a buyer bought, at which price, and what they owe (orders, order_items, order_counters).
-- Amounts are numeric(12,2), and the database defends an order's facts against every caller, the service
-- role included: the create-order function holds the service key, and so would anyone who stole it, and
-- through /rest/v1/rpc or plain SQL they must not be able to store a fee the payment method does not charge,
-- an order that does not add up, a number that does not match its year and sequence, or another currency
-- than the store's, nor rewrite or delete an order after the fact. These rules hold for any writer, the
-- tables' owner included; create_order (40_create_order.sql) checks the same facts first, to answer with a
-- code of its own. No API role writes these tables at all: order data is written through the functions.
--
-- Signed-in buyers read their own orders straight from the database, as Supabase users expect: create_order
-- records the buyer's user id (the `sub` of a user JWT the create-order function verified) in
-- orders.buyer_user_id; a guest order has none. `authenticated` may read the orders whose buyer_user_id is
-- auth.uid() and their items (their history: 30_order_lifecycle.sql), nothing else, and writes nothing;
-- `anon` reads no order data at all. auth.uid() is Supabase's own function (the local stack creates the same
-- where it is missing, local/migrate.ts), called as (select auth.uid()) so that it is evaluated once per
-- statement. There is no foreign key to auth.users: the id comes only from a verified JWT, and an order
-- outlives the account. The link may be cut (set to null) but never moved to another user.
--
-- SQLSTATEs raised here:
--   OCA00 AMOUNT_MISMATCH   an order's total is not the sum of its items (checked at commit)
--   OCA02 NO_ITEMS          an order without items (checked at commit)
--   OCC00 CURRENCY_MISMATCH an order in another currency than its store's
--   OCM00 ORDER_IMMUTABLE   a change to an order's store, time, year, number, amounts, currency, payment
--                           method, zone or items
--   23514 for the year check

create type public.order_status as enum (
  'pending', 'payment_pending', 'paid', 'processing', 'shipped', 'delivered', 'cancelled'
);

-- The rules as functions, one SQL place each, shared by the constraints below and by create_order.

-- The checkout fee rates of the contract (Money). The create-order function computes the fee in TypeScript
-- (money.ts); the database verifies it with these. tests/fee_rates_test.ts runs one table of cases through
-- both. Null for a combination the contract does not have.
create or replace function public.checkout_fee_rate(p_payment_method text, p_gateway_method text)
returns numeric
language sql
immutable
set search_path = ''
as $$
  select case
    when p_payment_method = 'upi_direct' and p_gateway_method is null then 0
    when p_payment_method = 'gateway' and p_gateway_method = 'card' then 0.025
    when p_payment_method = 'gateway' and p_gateway_method in ('upi', 'wallet') then 0.02
  end;
$$;

revoke execute on function public.checkout_fee_rate(text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.checkout_fee_rate(text, text) to service_role;

-- The fee of a total: total x rate, rounded half up to the paisa. round(numeric) rounds half away from zero,
-- which is half up for the non-negative totals of orders (0.005 -> 0.01).
create or replace function public.checkout_fee(p_total numeric, p_payment_method text, p_gateway_method text)
returns numeric
language sql
immutable
set search_path = ''
as $$
  select round(p_total * public.checkout_fee_rate(p_payment_method, p_gateway_method), 2);
$$;

revoke execute on function public.checkout_fee(numeric, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.checkout_fee(numeric, text, text) to service_role;

-- ORD-<year>-<sequence>, the sequence zero-padded to at least 6 digits and never cut: the millionth order of
-- a year is ORD-2026-1000000 (lpad alone would truncate it to a duplicate of the 100,000th).
create or replace function public.format_order_number(p_year integer, p_sequence integer)
returns text
language sql
immutable
set search_path = ''
as $$
  select 'ORD-' || p_year::text || '-' || lpad(p_sequence::text, greatest(6, length(p_sequence::text)), '0');
$$;

revoke execute on function public.format_order_number(integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.format_order_number(integer, integer) to service_role;

-- The year an order's number counts in: the calendar year of its creation in a zone (contract, "Success:
-- 200": an order placed at 00:30 IST on 1 January is the new year's). timezone(text, timestamptz) is
-- immutable, and so is this. The one-argument form is the year in UTC, as the first orders were numbered.
create or replace function public.order_year_of(p_ordered_at timestamptz)
returns integer
language sql
immutable
set search_path = ''
as $$
  select extract(year from p_ordered_at at time zone 'UTC')::integer;
$$;

create or replace function public.order_year_of(p_ordered_at timestamptz, p_time_zone text)
returns integer
language sql
immutable
set search_path = ''
as $$
  select extract(year from p_ordered_at at time zone p_time_zone)::integer;
$$;

revoke execute on function public.order_year_of(timestamptz) from public, anon, authenticated, service_role;
grant execute on function public.order_year_of(timestamptz) to service_role;
revoke execute on function public.order_year_of(timestamptz, text)
  from public, anon, authenticated, service_role;
grant execute on function public.order_year_of(timestamptz, text) to service_role;

create table public.orders (
  id uuid primary key default public.uuid_v7(),
  store_id uuid not null references public.stores (id) on delete restrict,
  -- ORD-<year>-<sequence>; numbers count per store: ORD-2026-000001 exists once in each store
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
  -- the transaction that created the order: items may be added in it only
  created_txid xid8 not null default pg_current_xact_id(),
  -- the signed-in buyer's user id (auth.uid()), null for a guest order
  buyer_user_id uuid,
  -- the zone the order's year was taken in: its store's for new orders (check_new_order sets it, whatever
  -- the insert says), 'UTC' for the orders numbered before stores had one and for rows written with
  -- triggers off (a restore, a test that ages an order)
  time_zone text not null default 'UTC',
  constraint orders_final_is_total_plus_fee check (final_amount = total_amount + checkout_fee),
  constraint orders_gateway_method_only_for_gateway
    check ((payment_method = 'gateway') = (gateway_method is not null)),
  constraint orders_upi_direct_has_proof
    check (payment_method <> 'upi_direct' or payment_proof_url is not null),
  constraint orders_number_with_sequence check ((order_number is null) = (order_sequence is null)),
  constraint orders_store_number_unique unique (store_id, order_number),
  -- the fee follows the payment method; a combination without a rate fails too (coalesce)
  constraint orders_fee_follows_method
    check (checkout_fee = coalesce(public.checkout_fee(total_amount, payment_method, gateway_method), -1)),
  -- the number is the one its year and sequence give (it is set once, after the row is written)
  constraint orders_number_matches_year_and_sequence
    check (order_number is null or order_number = public.format_order_number(order_year, order_sequence)),
  constraint orders_year_in_time_zone check (order_year = public.order_year_of(created_at, time_zone))
);

-- Rows written before this check were checked by the function's previous validator, which allowed a few
-- shapes this rule refuses (say a label ending in a hyphen): they stay as they are, and every new or changed
-- row is checked (not valid).
alter table public.orders add constraint orders_buyer_email_shape
  check (public.is_email_address(buyer_email)) not valid;

-- a buyer's own orders, newest first (orders_buyer_read)
create index orders_buyer_user_id_idx on public.orders (buyer_user_id, created_at desc)
  where buyer_user_id is not null;
-- The unpaid-order batch reads only the orders awaiting payment, oldest first. (A move out of
-- payment_pending is then not a HOT update: one index entry per order, once.)
create index orders_payment_pending_created_at_idx on public.orders (created_at)
  where status = 'payment_pending';

-- An item is its order's line at a position. Its id is read by no query (every reader goes by order_id)
-- and stays for whoever selected it.
create table public.order_items (
  id uuid not null default public.uuid_v7(),
  order_id uuid not null references public.orders (id) on delete cascade,
  position integer not null check (position >= 0),
  product_id uuid not null references public.products (id) on delete restrict,
  variant_id uuid,
  -- names as sold: a later rename in the catalogue does not rewrite history
  product_name text not null,
  variant_name text,
  quantity integer not null check (quantity > 0 and quantity <= 10000),
  unit_price numeric(12, 2) not null check (unit_price >= 0),
  line_total numeric(14, 2) not null,
  created_at timestamptz not null default now(),
  -- where create_order took the item's stock from: 'variant', 'product', or null when not tracked
  stock_source text constraint order_items_stock_source check (stock_source in ('product', 'variant')),
  constraint order_items_line_total check (line_total = unit_price * quantity),
  primary key (order_id, position),
  -- the variant is one of the item's product's (create_order checks it too)
  constraint order_items_variant_of_its_product foreign key (product_id, variant_id)
    references public.product_variants (product_id, id) on delete restrict
);

-- the two foreign keys' checks when a product or a variant is deleted (without it each scans every item
-- sold); one index, not one per key: each order dirties one leaf of it, not two (WAL per order)
create index order_items_product_id_variant_id_idx on public.order_items (product_id, variant_id);

-- One row per store and year (in the store's zone); last_sequence is the last number handed out. Numbers
-- come from an update (or, for a year's first order, an insert) of this row inside the order's transaction,
-- so a rolled-back order gives its number back and the sequence has no gaps.
create table public.order_counters (
  store_id uuid not null references public.stores (id) on delete restrict,
  year integer not null check (year between 2000 and 9999),
  last_sequence integer not null check (last_sequence > 0),
  updated_at timestamptz not null default now(),
  primary key (store_id, year)
);

-- A new order is in its store's currency, and in its store's zone; it remembers the transaction that
-- created it.
create or replace function public.check_new_order()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_store record;
begin
  select s.currency, s.time_zone into v_store from public.stores s where s.id = new.store_id;
  if new.currency is distinct from v_store.currency then
    raise exception using
      errcode = 'OCC00',
      message = format('CURRENCY_MISMATCH: an order of this store must be in %s, not %s', v_store.currency, new.currency);
  end if;
  new.time_zone := v_store.time_zone;
  new.created_txid := pg_current_xact_id();
  return new;
end;
$$;

revoke execute on function public.check_new_order() from public, anon, authenticated, service_role;

-- An order's facts never change: its store, time (created_at), year, number (set once, from null), amounts,
-- currency, payment method and the zone its year was taken in.
create or replace function public.keep_order_facts()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is distinct from old.id
    or new.store_id is distinct from old.store_id
    or new.order_year is distinct from old.order_year
    or new.time_zone is distinct from old.time_zone
    or new.created_at is distinct from old.created_at
    or new.currency is distinct from old.currency
    or new.total_amount is distinct from old.total_amount
    or new.checkout_fee is distinct from old.checkout_fee
    or new.final_amount is distinct from old.final_amount
    or new.payment_method is distinct from old.payment_method
    or new.gateway_method is distinct from old.gateway_method
    or new.created_txid is distinct from old.created_txid
    or (old.order_number is not null and new.order_number is distinct from old.order_number)
    or (old.order_sequence is not null and new.order_sequence is distinct from old.order_sequence) then
    raise exception using
      errcode = 'OCM00',
      message = 'ORDER_IMMUTABLE: an order''s store, time, year, number, amounts, currency and payment method never change';
  end if;
  return new;
end;
$$;

revoke execute on function public.keep_order_facts() from public, anon, authenticated, service_role;

-- Items: written with their order, in its transaction, and then neither changed nor removed while the order
-- stands. Deleting the order itself (its owner only; no API role may) still takes its items along.
create or replace function public.keep_order_items()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' then
    if exists (select 1 from public.orders o where o.id = old.order_id) then
      raise exception using
        errcode = 'OCM00',
        message = 'ORDER_IMMUTABLE: an order''s items are written with the order and never change';
    end if;
    return old;
  end if;
  if tg_op = 'UPDATE' or not exists (
    select 1 from public.orders o where o.id = new.order_id and o.created_txid = pg_current_xact_id()
  ) then
    raise exception using
      errcode = 'OCM00',
      message = 'ORDER_IMMUTABLE: an order''s items are written with the order and never change';
  end if;
  return new;
end;
$$;

revoke execute on function public.keep_order_items() from public, anon, authenticated, service_role;

-- At commit of the transaction that created it, an order has items and its total is their sum. Deferred,
-- because the order row is written before its items; items cannot change afterwards (above), so this holds
-- for good.
create or replace function public.check_order_adds_up()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_items bigint;
  v_sum numeric;
begin
  select count(*), sum(i.line_total) into v_items, v_sum
  from public.order_items i where i.order_id = new.id;
  if v_items = 0 then
    raise exception using errcode = 'OCA02', message = 'NO_ITEMS: an order needs at least one item';
  end if;
  if v_sum <> new.total_amount then
    raise exception using
      errcode = 'OCA00',
      message = format('AMOUNT_MISMATCH: the order''s total %s is not the sum of its items %s', new.total_amount, v_sum);
  end if;
  return null;
end;
$$;

revoke execute on function public.check_order_adds_up() from public, anon, authenticated, service_role;

-- Whose order it is is decided when it is created: an update may clear the link, never set or move it.
create or replace function public.keep_order_buyer()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.buyer_user_id is not null and new.buyer_user_id is distinct from old.buyer_user_id then
    raise exception using
      errcode = 'OCM00',
      message = 'ORDER_IMMUTABLE: an order''s buyer is set when it is created; it may only be cleared';
  end if;
  return new;
end;
$$;

revoke execute on function public.keep_order_buyer() from public, anon, authenticated, service_role;

create trigger orders_touch_updated_at before update on public.orders
  for each row execute function public.touch_updated_at();
create trigger orders_check_new before insert on public.orders
  for each row execute function public.check_new_order();
create trigger orders_keep_facts before update on public.orders
  for each row execute function public.keep_order_facts();
create trigger orders_keep_buyer before update of buyer_user_id on public.orders
  for each row execute function public.keep_order_buyer();
create constraint trigger orders_add_up after insert on public.orders
  deferrable initially deferred
  for each row execute function public.check_order_adds_up();
create trigger order_items_keep before insert or update on public.order_items
  for each row execute function public.keep_order_items();
create trigger order_items_keep_on_delete before delete on public.order_items
  for each row execute function public.keep_order_items();

alter table public.orders enable row level security;
alter table public.order_items enable row level security;
alter table public.order_counters enable row level security;

-- The buyer's own orders and items: select only, and only rows of their own orders.
create policy orders_buyer_read on public.orders
  for select to authenticated
  using (buyer_user_id = (select auth.uid()));

create policy order_items_buyer_read on public.order_items
  for select to authenticated
  using (order_id = any (array(
    select o.id from public.orders o where o.buyer_user_id = (select auth.uid())
  )));

-- Read, never written, by the API roles: service_role reads everything, a signed-in buyer their own.
revoke all on public.orders, public.order_items, public.order_counters from anon, authenticated, service_role;
grant select on public.orders, public.order_items, public.order_counters to service_role;
grant select on public.orders, public.order_items to authenticated;
