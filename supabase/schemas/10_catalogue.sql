-- Catalogue: the stores, products and variants a storefront sells.
-- The catalogue is the authority on prices; create_order compares every ordered price with it.
-- Storefronts may read active catalogue rows with the public key; only service_role writes (the seller
-- keeps the catalogue with the service key, `deno task catalogue:import` by SKU).
--
-- Stock: stock_quantity is optional: null means the shop does not track stock for the row (orders take any
-- quantity), a number is what is left to sell and never goes below 0. An ordered variant draws on its own
-- stock when it has one, else on its product's (variants that share one pile of stock leave theirs null).
-- create_order takes the stock and records on each item where it took it from (order_items.stock_source);
-- the restock on cancel puts it back there (30_order_lifecycle.sql). imported_stock is the count the last
-- `deno task catalogue:import` set: the import sets the stock again only when the file's count differs from
-- it, so the same file after sales brings no sold units back (null: no import set one, or it left the stock
-- untracked).
--
-- SKUs: the seller's own code of each product and variant, by which the import matches a CSV's lines to the
-- catalogue's rows. Optional (rows made otherwise may have none, and rows without one never collide); a
-- product's SKU is unique within its store, a variant's within its product. The shape is what the import
-- accepts: letters and digits, then also . _ / -, at most 64 characters.

-- A store's time zone is a location's zone of the IANA database, Area/Location (Asia/Kolkata,
-- America/Argentina/Buenos_Aires), or UTC. pg_timezone_names also lists what is no location's zone:
-- - the posix/ and right/ trees (copies of the zones, the right/ ones counting leap seconds, which no clock
--   of ours does), and localtime, posixrules and Factory (the server's own files, not zones at all);
-- - the legacy names: POSIX-style rules such as EST5EDT, CST6CDT or EST, whose meaning tzdata 2024b
--   changed (they became links to America/New_York and others, with that city's history); Etc/GMT+5,
--   five hours *behind* UTC, the reverse of what a reader expects; and the backward-compatibility aliases
--   without an area (US/Eastern, Japan, GB, Zulu), which tzdata keeps only for old systems.
-- Every one of them has an Area/Location name that says the same thing plainly, and the pages and e-mails
-- show dates with it (Intl, whose list of names differs from the server's in exactly these corners), so
-- the check accepts only those and UTC. deno task store:add checks the same rule, and that Intl takes the
-- name, before it writes. A check constraint is not checked again when its function changes: a migration that
-- changes this rule first names the stores it would refuse.
create or replace function public.is_time_zone(p_name text)
returns boolean
language sql
stable
set search_path = ''
as $$
  select p_name is not null
    and (p_name = 'UTC' or p_name ~ '^(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)?$')
    and exists (select 1 from pg_catalog.pg_timezone_names z where z.name = p_name);
$$;

revoke execute on function public.is_time_zone(text) from public, anon, authenticated, service_role;
grant execute on function public.is_time_zone(text) to service_role;

-- A store's currency is one of the ISO 4217 codes in use whose minor unit is the hundredth, the list of
-- local/currencies.ts (STORE_CURRENCIES), which deno task store:add checks: not `ABC`, `XXX` (no money) or
-- `JPY`/`KWD` (whose amounts this service, counting hundredths everywhere, would get wrong). The list is
-- written out here once; tests/store_currencies_test.ts holds is_store_currency to STORE_CURRENCIES over
-- every three-letter code, so the two cannot drift: a change of the list changes this function.
create or replace function public.is_store_currency(p_code text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(p_code = any ('{
    AED,AFN,ALL,AMD,AOA,ARS,AUD,AWG,AZN,BAM,BBD,BDT,BMD,BND,BOB,BRL,BSD,BTN,BWP,BYN,BZD,CAD,CDF,CHF,
    CNY,COP,CRC,CUP,CVE,CZK,DKK,DOP,DZD,EGP,ERN,ETB,EUR,FJD,FKP,GBP,GEL,GHS,GIP,GMD,GTQ,GYD,HKD,HNL,
    HTG,HUF,IDR,ILS,INR,IRR,JMD,KES,KGS,KHR,KPW,KYD,KZT,LAK,LBP,LKR,LRD,LSL,MAD,MDL,MGA,MKD,MMK,MNT,
    MOP,MRU,MUR,MVR,MWK,MXN,MYR,MZN,NAD,NGN,NIO,NOK,NPR,NZD,PAB,PEN,PGK,PHP,PKR,PLN,QAR,RON,RSD,RUB,
    SAR,SBD,SCR,SDG,SEK,SGD,SHP,SLE,SOS,SRD,SSP,STN,SVC,SYP,SZL,THB,TJS,TMT,TOP,TRY,TTD,TWD,TZS,UAH,
    USD,UYU,UZS,VED,VES,WST,XCD,XCG,YER,ZAR,ZMW,ZWG
  }'::text[]), false);
$$;

revoke execute on function public.is_store_currency(text) from public, anon, authenticated, service_role;
grant execute on function public.is_store_currency(text) to service_role;

create table public.stores (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  -- the seller's private address: the public sees the rest of a store
  owner_email text not null check (length(owner_email) between 3 and 254),
  currency text not null default 'INR'
    constraint stores_currency_check check (public.is_store_currency(currency)),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- a storefront or order page may show dates in the store's zone, as it may show its currency
  time_zone text not null default 'Asia/Kolkata'
    constraint stores_time_zone_is_iana check (public.is_time_zone(time_zone))
);

create table public.products (
  id uuid primary key default gen_random_uuid(),
  store_id uuid not null references public.stores (id) on delete restrict,
  name text not null check (length(name) between 1 and 200),
  price numeric(12, 2) not null check (price >= 0),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  stock_quantity integer constraint products_stock_quantity_not_negative check (stock_quantity >= 0),
  sku text constraint products_sku_shape check (sku ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$'),
  imported_stock integer constraint products_imported_stock_not_negative check (imported_stock >= 0)
);

create index products_store_id_idx on public.products (store_id);
-- the import's lookups by SKU, and no duplicate SKU
create unique index products_store_id_sku_key on public.products (store_id, sku);

create table public.product_variants (
  id uuid primary key default gen_random_uuid(),
  product_id uuid not null references public.products (id) on delete restrict,
  name text not null check (length(name) between 1 and 200),
  -- null: the variant sells at its product's price
  price numeric(12, 2) check (price >= 0),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  stock_quantity integer constraint product_variants_stock_quantity_not_negative check (stock_quantity >= 0),
  sku text constraint product_variants_sku_shape check (sku ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$'),
  imported_stock integer constraint product_variants_imported_stock_not_negative check (imported_stock >= 0),
  -- what order_items' foreign key (product_id, variant_id) names
  constraint product_variants_product_id_id_key unique (product_id, id)
);

create index product_variants_product_id_idx on public.product_variants (product_id);
create unique index product_variants_product_id_sku_key on public.product_variants (product_id, sku);

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
grant select (id, name, currency, is_active, created_at, updated_at, time_zone) on public.stores
  to anon, authenticated;
grant select on public.products, public.product_variants to anon, authenticated;
grant all on public.stores, public.products, public.product_variants to service_role;
