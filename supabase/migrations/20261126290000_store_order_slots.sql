-- A cap on the connections one store's orders may hold (contract, "Under concurrency, at scale, on a slow
-- day": an order stuck behind one store's locked rows never delays an order of another store). Every order
-- waits inside the database for its store's rows (the store's queue, its stock rows, its counter row), each
-- wait on a connection of the caller's pool: PostgREST's, 10 on the local stack and small on Supabase too.
-- With one store's counter row held, 40 of its orders filled the pool of 10, and an order of another store
-- waited 5.99 s for a connection (0.03 s otherwise). Now a store's orders take one of its K waiter slots
-- before their first store-scoped lock (take_store_slot, a try: it never waits) and hold it to commit;
-- when all K are taken the call fails at once with OCW29, holding nothing, and its caller (create-order's
-- adapter) tries again after a short pause without a connection, until its deadline. One store can then
-- hold at most K of the pool's connections, whatever happens to its rows.
--
-- K is the database's own setting (order_settings.store_order_slots, default 3: below the local pool of
-- 10, leaving 7 connections to the other stores with one store stuck, 4 with two), the same for every
-- caller, the function and the service key's direct calls alike. An operator changes it with
--   update public.order_settings set store_order_slots = 4;
-- (it applies to the next order). One row, read only by the tables' owner: no API role reads or writes it.
--
-- SQLSTATE: OCW29 STORE_BUSY (detail: { retryAfterSeconds: 1 }): K orders of the store are in the
-- database already; nothing was done, and trying again shortly is safe.

create table public.order_settings (
  -- one row: the key can only be true
  singleton boolean primary key default true check (singleton),
  store_order_slots integer not null default 3 check (store_order_slots between 1 and 100)
);
insert into public.order_settings default values on conflict do nothing;

alter table public.order_settings enable row level security;
revoke all on public.order_settings from public, anon, authenticated, service_role;

-- One of the store's K waiter slots for this transaction (held to commit), or OCW29 at once when all are
-- taken. Each slot is a transaction-scoped advisory lock `store-slot/<store id>/<n>`, tried in turn; a
-- transaction that holds one already takes it again. Read at every call, the setting applies at once.
create or replace function public.take_store_slot(p_store_id uuid)
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_slots integer := coalesce((select s.store_order_slots from public.order_settings s where s.singleton), 3);
begin
  -- no store, nothing of one to wait on: the store's own check refuses the order
  if p_store_id is null then
    return;
  end if;
  for v_slot in 1..v_slots loop
    if pg_try_advisory_xact_lock(hashtextextended('store-slot/' || p_store_id::text || '/' || v_slot, 0)) then
      return;
    end if;
  end loop;
  raise exception using errcode = 'OCW29',
    message = format('STORE_BUSY: %s orders of this store are in progress; try again shortly', v_slots),
    detail = jsonb_build_object('retryAfterSeconds', 1)::text;
end;
$$;

revoke execute on function public.take_store_slot(uuid) from public, anon, authenticated, service_role;
