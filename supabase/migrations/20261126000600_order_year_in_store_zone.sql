-- The order year is the calendar year of the order's creation in its store's time zone (contract,
-- "Success: 200": an order placed at 00:30 IST on 1 January is the new year's), no longer UTC's.
-- - order_year_of(at, zone): the year of `at` in `zone`. The one-argument order_year_of (UTC) stays for
--   what was numbered with it.
-- - orders.time_zone: the zone the order's year was taken in. Every order written before this migration was
--   numbered in UTC, so they all get 'UTC' and keep their numbers; every new order gets its store's zone
--   (check_new_order sets it, whatever the insert said, as it sets the creating transaction's id), and it
--   never changes after (keep_order_facts).
-- - The year check follows the order's zone: orders_year_in_time_zone replaces orders_year_of_created_at
--   (the same rule for every existing row, whose zone is UTC). The column's default, 'UTC', is for rows
--   written with triggers off (a restore, a test that ages an order): they carry their own zone, or UTC's.
--
-- SQLSTATEs: OCM00 ORDER_IMMUTABLE, OCC00 CURRENCY_MISMATCH (as before), 23514 for the year check.

-- 1. The year in a zone. timezone(text, timestamptz) is immutable, and so is this.
create or replace function public.order_year_of(p_ordered_at timestamptz, p_time_zone text)
returns integer
language sql
immutable
set search_path = ''
as $$
  select extract(year from p_ordered_at at time zone p_time_zone)::integer;
$$;

revoke execute on function public.order_year_of(timestamptz, text) from public, anon, authenticated;
grant execute on function public.order_year_of(timestamptz, text) to service_role;

-- 2. The zone of each order, and the year check in it.
alter table public.orders add column time_zone text not null default 'UTC';
alter table public.orders add constraint orders_year_in_time_zone
  check (order_year = public.order_year_of(created_at, time_zone)) not valid;
-- every existing row passed orders_year_of_created_at, the same rule in UTC, unless it was written around
-- that check (plain SQL before it was added): such rows are reported, as that migration did, not refused
do $$
begin
  alter table public.orders validate constraint orders_year_in_time_zone;
exception when check_violation then
  raise notice 'orders_year_in_time_zone: existing orders whose year is not their created_at''s are kept as they are';
end
$$;
alter table public.orders drop constraint orders_year_of_created_at;

-- 3. A new order is in its store's currency, and in its store's zone; it remembers the transaction that
--    created it (check_new_order, whole).
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

-- 4. An order's facts never change (keep_order_facts, whole): now with the zone its year was taken in.
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

revoke execute on function public.check_new_order() from public, anon, authenticated, service_role;
revoke execute on function public.keep_order_facts() from public, anon, authenticated, service_role;
