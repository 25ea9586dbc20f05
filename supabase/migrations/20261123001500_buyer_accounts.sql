-- Signed-in buyers read their own orders straight from the database, as Supabase users expect: supabase-js
-- with the project's public key and the buyer's session, under row level security. create_order records
-- the buyer's user id (the `sub` of a user JWT the create-order function verified) in orders.buyer_user_id;
-- a guest order has none. `authenticated` may then read the orders whose buyer_user_id is auth.uid(), their
-- items and their status history, and nothing else: not another buyer's, not the outbox, counters, keys or
-- rate limits, and it writes nothing. `anon` still reads no order data at all.
--
-- auth.uid() is Supabase's own function (schema auth): the `sub` claim of the request's verified JWT,
-- which PostgREST sets per request in request.jwt.claims. The local stack creates the same function where
-- it is missing (local/migrate.ts). It is called as (select auth.uid()), so PostgreSQL evaluates it once
-- per statement rather than once per row.
--
-- There is no foreign key to auth.users: the id comes only from a verified JWT, and an order outlives the
-- account (a deleted user's orders keep their facts). The link may be cut (set to null, e.g. when an
-- account is deleted) but never moved to another user.

alter table public.orders add column buyer_user_id uuid;
create index orders_buyer_user_id_idx on public.orders (buyer_user_id, created_at desc)
  where buyer_user_id is not null;

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

create trigger orders_keep_buyer before update of buyer_user_id on public.orders
  for each row execute function public.keep_order_buyer();

revoke execute on function public.keep_order_buyer() from public, anon, authenticated, service_role;

-- The buyer's own orders, items and history: select only, and only rows of their own orders.
create policy orders_buyer_read on public.orders
  for select to authenticated
  using (buyer_user_id = (select auth.uid()));

create policy order_items_buyer_read on public.order_items
  for select to authenticated
  using (exists (
    select 1 from public.orders o where o.id = order_id and o.buyer_user_id = (select auth.uid())
  ));

create policy order_status_history_buyer_read on public.order_status_history
  for select to authenticated
  using (exists (
    select 1 from public.orders o where o.id = order_id and o.buyer_user_id = (select auth.uid())
  ));

grant select on public.orders, public.order_items to authenticated;
-- History by named columns: each status and when it was taken. Who made a change (and any column a later
-- migration adds for the seller's records) stays private unless a migration grants it.
grant select (id, order_id, from_status, to_status, changed_at) on public.order_status_history to authenticated;
