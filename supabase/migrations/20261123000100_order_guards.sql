-- Order guards: the database defends an order's facts against every caller, the service role included.
-- The create-order function holds the service key, and so would anyone who stole it: through
-- /rest/v1/rpc or plain SQL they must not be able to store a fee the payment method does not charge, an
-- order that does not add up, a number that does not match its year and sequence, or another currency
-- than the store's, nor rewrite or delete an order after the fact. The rules here hold for any writer;
-- create_order (its own migration) checks the same facts first, to answer with a code of its own.
--
-- SQLSTATEs raised here:
--   OCA00 AMOUNT_MISMATCH   an order's total is not the sum of its items (checked at commit)
--   OCA02 NO_ITEMS          an order without items (checked at commit)
--   OCC00 CURRENCY_MISMATCH an order in another currency than its store's
--   OCM00 ORDER_IMMUTABLE   a change to an order's store, number, amounts, currency, payment method or items

-- 1. The rules as functions, one SQL place each, shared by the constraints below and by create_order.

-- The checkout fee rates of the contract (Money). The create-order function computes the fee in
-- TypeScript (money.ts); the database verifies it with these. tests/fee_rates_test.ts runs one table of
-- cases through both. Null for a combination the contract does not have.
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

-- The fee of a total: total x rate, rounded half up to the paisa. round(numeric) rounds half away from
-- zero, which is half up for the non-negative totals of orders (0.005 -> 0.01).
create or replace function public.checkout_fee(p_total numeric, p_payment_method text, p_gateway_method text)
returns numeric
language sql
immutable
set search_path = ''
as $$
  select round(p_total * public.checkout_fee_rate(p_payment_method, p_gateway_method), 2);
$$;

-- ORD-<year>-<sequence>, the sequence zero-padded to at least 6 digits and never cut: the millionth
-- order of a year is ORD-2026-1000000 (lpad alone would truncate it to a duplicate of the 100,000th).
create or replace function public.format_order_number(p_year integer, p_sequence integer)
returns text
language sql
immutable
set search_path = ''
as $$
  select 'ORD-' || p_year::text || '-' || lpad(p_sequence::text, greatest(6, length(p_sequence::text)), '0');
$$;

-- The calendar year (UTC) an order's number counts in.
create or replace function public.order_year_of(p_ordered_at timestamptz)
returns integer
language sql
immutable
set search_path = ''
as $$
  select extract(year from p_ordered_at at time zone 'UTC')::integer;
$$;

-- The contract's buyer e-mail shape, as the function's validator (email_address.ts) checks it: at most
-- 254 chars; a dot-atom local part of at most 64 chars; a domain of at least two labels of letters,
-- digits and inner hyphens (at most 63 chars each), the last one letters or an xn-- IDN label. No quoted
-- local parts, no IP literals, no white space or control characters anywhere.
create or replace function public.is_email_address(p_address text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(
    length(p_address) <= 254
      and length(split_part(p_address, '@', 1)) <= 64
      and p_address ~ ('^[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+)*'
        || '@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+'
        || '([A-Za-z]{1,63}|[Xx][Nn]--[A-Za-z0-9-]{0,58}[A-Za-z0-9])$'),
    false
  );
$$;

-- 2. Constraints every row of orders keeps.

-- The fee follows the payment method; a combination without a rate fails too (coalesce).
alter table public.orders add constraint orders_fee_follows_method
  check (checkout_fee = coalesce(public.checkout_fee(total_amount, payment_method, gateway_method), -1));

-- The number is the one its year and sequence give (it is set once, after the row is written).
alter table public.orders add constraint orders_number_matches_year_and_sequence
  check (order_number is null or order_number = public.format_order_number(order_year, order_sequence));

-- Earlier rows were checked by the function's previous validator, which allowed a few shapes this rule
-- refuses (say a label ending in a hyphen): they stay as they are, every new or changed row is checked.
alter table public.orders add constraint orders_buyer_email_shape
  check (public.is_email_address(buyer_email)) not valid;

-- Items may only be added in the transaction that created their order: the transaction's id is kept.
alter table public.orders add column created_txid xid8 not null default pg_current_xact_id();

-- 3. Triggers for what a check constraint cannot see: other rows, the old row, the transaction.

-- A new order is in its store's currency and remembers the transaction that created it (whatever the
-- insert said, so no caller can claim a later transaction's id).
create or replace function public.check_new_order()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_store_currency text;
begin
  select s.currency into v_store_currency from public.stores s where s.id = new.store_id;
  if new.currency is distinct from v_store_currency then
    raise exception using
      errcode = 'OCC00',
      message = format('CURRENCY_MISMATCH: an order of this store must be in %s, not %s', v_store_currency, new.currency);
  end if;
  new.created_txid := pg_current_xact_id();
  return new;
end;
$$;

create trigger orders_check_new before insert on public.orders
  for each row execute function public.check_new_order();

-- An order's facts never change: store, year, amounts, currency, payment method (the fee depends on it),
-- and the number, which may only be set once, from null. Status (through the lifecycle trigger),
-- updated_at and the buyer's contact details may change.
create or replace function public.keep_order_facts()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is distinct from old.id
    or new.store_id is distinct from old.store_id
    or new.order_year is distinct from old.order_year
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
      message = 'ORDER_IMMUTABLE: an order''s store, number, amounts, currency and payment method never change';
  end if;
  return new;
end;
$$;

create trigger orders_keep_facts before update on public.orders
  for each row execute function public.keep_order_facts();

-- Items are written with their order, in its transaction, and never changed afterwards.
create or replace function public.keep_order_items()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
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

create trigger order_items_keep before insert or update on public.order_items
  for each row execute function public.keep_order_items();

-- At commit of the transaction that created it, an order has items and its total is their sum. Deferred,
-- because the order row is written before its items; items cannot change afterwards (above), so this
-- holds for good.
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

create constraint trigger orders_add_up after insert on public.orders
  deferrable initially deferred
  for each row execute function public.check_order_adds_up();

-- 4. Grants: no API role deletes or truncates order data, rewrites history or items, or adds triggers.
revoke delete, truncate, trigger on public.orders, public.order_items, public.order_status_history
  from anon, authenticated, service_role;
revoke update on public.order_status_history, public.order_items from anon, authenticated, service_role;

revoke execute on function public.checkout_fee_rate(text, text) from public, anon, authenticated;
grant execute on function public.checkout_fee_rate(text, text) to service_role;
revoke execute on function public.checkout_fee(numeric, text, text) from public, anon, authenticated;
grant execute on function public.checkout_fee(numeric, text, text) to service_role;
revoke execute on function public.format_order_number(integer, integer) from public, anon, authenticated;
grant execute on function public.format_order_number(integer, integer) to service_role;
revoke execute on function public.order_year_of(timestamptz) from public, anon, authenticated;
grant execute on function public.order_year_of(timestamptz) to service_role;
revoke execute on function public.is_email_address(text) from public, anon, authenticated;
grant execute on function public.is_email_address(text) to service_role;
revoke execute on function public.check_new_order() from public, anon, authenticated;
revoke execute on function public.keep_order_facts() from public, anon, authenticated;
revoke execute on function public.keep_order_items() from public, anon, authenticated;
revoke execute on function public.check_order_adds_up() from public, anon, authenticated;
