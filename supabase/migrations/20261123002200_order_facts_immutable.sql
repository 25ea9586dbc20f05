-- An order's facts never change after creation, now including when it was made: created_at joins the facts
-- that keep_order_facts guards (store, year, number, amounts, currency, payment method), its year is the
-- calendar year (UTC) of created_at for every row (the number counts in that year), and its items stay as
-- written: never updated, never added later, and now never deleted while their order stands. These hold
-- for every writer, the tables' owner included; no API role writes the tables at all (the previous
-- migration).
--
-- SQLSTATEs: OCM00 ORDER_IMMUTABLE (as before), 23514 for the year check.

-- 1. The facts of an order, with created_at.
create or replace function public.keep_order_facts()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is distinct from old.id
    or new.store_id is distinct from old.store_id
    or new.order_year is distinct from old.order_year
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
      message = 'ORDER_IMMUTABLE: an order''s store, time, number, amounts, currency and payment method never change';
  end if;
  return new;
end;
$$;

-- 2. The year an order is numbered in is the year it was made. Rows written before this migration by
--    create_order all keep it; a row written around it (plain SQL) is reported, not refused, and every new
--    or changed row is checked.
alter table public.orders add constraint orders_year_of_created_at
  check (order_year = public.order_year_of(created_at)) not valid;
do $$
begin
  alter table public.orders validate constraint orders_year_of_created_at;
exception when check_violation then
  raise notice 'orders_year_of_created_at: existing orders whose year is not their created_at''s are kept as they are';
end
$$;

-- 3. Items: written with their order, in its transaction, and then neither changed nor removed while the
--    order stands. Deleting the order itself (its owner only; no API role may) still takes its items along.
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

create trigger order_items_keep_on_delete before delete on public.order_items
  for each row execute function public.keep_order_items();

revoke execute on function public.keep_order_facts() from public, anon, authenticated, service_role;
revoke execute on function public.keep_order_items() from public, anon, authenticated, service_role;
