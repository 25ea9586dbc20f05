-- Catalogue: the stores, products and variants a storefront sells.
-- The catalogue is the authority on prices; create_order compares every ordered price with it.
-- Storefronts may read active catalogue rows with the public key; only service_role writes.

-- One trigger function keeps updated_at honest on every table that has the column.
create or replace function public.touch_updated_at()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end;
$$;

create table public.stores (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  owner_email text not null check (length(owner_email) between 3 and 254),
  currency text not null default 'INR' check (currency ~ '^[A-Z]{3}$'),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.products (
  id uuid primary key default gen_random_uuid(),
  store_id uuid not null references public.stores (id) on delete restrict,
  name text not null check (length(name) between 1 and 200),
  price numeric(12, 2) not null check (price >= 0),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index products_store_id_idx on public.products (store_id);

create table public.product_variants (
  id uuid primary key default gen_random_uuid(),
  product_id uuid not null references public.products (id) on delete restrict,
  name text not null check (length(name) between 1 and 200),
  -- null: the variant sells at its product's price
  price numeric(12, 2) check (price >= 0),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index product_variants_product_id_idx on public.product_variants (product_id);

create trigger stores_touch_updated_at before update on public.stores
  for each row execute function public.touch_updated_at();
create trigger products_touch_updated_at before update on public.products
  for each row execute function public.touch_updated_at();
create trigger product_variants_touch_updated_at before update on public.product_variants
  for each row execute function public.touch_updated_at();

-- Row level security: the public may see what is on sale, nothing else.
alter table public.stores enable row level security;
alter table public.products enable row level security;
alter table public.product_variants enable row level security;

create policy stores_public_read on public.stores
  for select to anon, authenticated using (is_active);
create policy products_public_read on public.products
  for select to anon, authenticated using (
    is_active and exists (select 1 from public.stores s where s.id = store_id and s.is_active)
  );
create policy product_variants_public_read on public.product_variants
  for select to anon, authenticated using (
    is_active and exists (
      select 1 from public.products p join public.stores s on s.id = p.store_id
      where p.id = product_id and p.is_active and s.is_active
    )
  );

revoke all on public.stores, public.products, public.product_variants from anon, authenticated;
-- owner_email is the seller's private address: the public sees the rest of a store.
grant select (id, name, currency, is_active, created_at, updated_at) on public.stores to anon, authenticated;
grant select on public.products, public.product_variants to anon, authenticated;
grant all on public.stores, public.products, public.product_variants to service_role;
