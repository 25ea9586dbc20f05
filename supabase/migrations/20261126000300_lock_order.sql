-- One global lock order for every writer, and deadlines that bound every wait (contract, "Under
-- concurrency, at scale, on a slow day"). This file defines the order and the deadline's helpers, and puts
-- the restock on cancel in that order; the migrations after it put the other writers in it.
--
-- THE LOCK ORDER. Every writer (create_order, update_order_status, confirm_payment, cancel_unpaid_orders,
-- move_order_status and the triggers they fire) takes its locks in this order and never goes back to an
-- earlier rank, so no two writers, in any mix, wait on each other in a cycle:
--   1. Its request's own advisory locks: create_order's idempotency key (a try: it never waits);
--      confirm_payment's provider event id, then its provider payment id.
--   2. The one order it moves: its queue `order/<id>`, then its row (FOR UPDATE); update_order_status and
--      confirm_payment, through move_order_status. cancel_unpaid_orders takes its batch of orders oldest first
--      with SKIP LOCKED: it never waits for one.
--   3. Catalogue rows it reads FOR KEY SHARE (create_order: the store, then each item's product and variant):
--      only a delete or a change of a key conflicts with them, and no writer of ours makes either.
--   4. Stores' queues `store/<id>`, in store id order. A store's stock rows and order counters are locked by
--      no writer of ours that does not hold its store's queue: create_order (from its stock to its commit),
--      the restock of a cancelled order, cancel_unpaid_orders (for every store of its batch, before any move).
--   5. Stock rows, in (product id, variant id) order, a product's own row before its variants'.
--   6. The store's order counter of the year (create_order).
--   7. New rows (the order, its items, history, outbox and payment rows, idempotency keys): nobody else can
--      hold a row that does not exist yet, and their unique keys are guarded by 1, 2 or 6.
--   8. Rate-limit buckets, shared by every store: each behind its queue `rate-limit/<bucket>`, in bucket
--      order, last (create_order). Taken after every store-scoped wait and held only for the statements
--      before commit, so an order stuck behind one store's rows holds no bucket another store's order needs.
--   The outbox's rows are locked only by the outbox functions (claim_due_emails, record_email_results), with
--   SKIP LOCKED or by claim token, and a transaction holding them takes no lock of ranks 1-8 afterwards.
-- A batch takes its stock rows in rank 5's order (cancel_unpaid_orders locks every store and stock row of its
-- batch before the first move) rather than working one order per transaction: the drain's run stays one
-- round trip and one transaction, and its moves then find every row they restock already theirs.
--
-- THE DEADLINE. A writer called with a deadline records it for its transaction (start_deadline) and, before
-- each statement that may wait for a lock, sets lock_timeout to the time left (bound_lock_wait). That alone
-- is not enough: lock_timeout counts each lock wait afresh, and one row can be several waits (the tuple lock
-- behind the first waiter, then that waiter's transaction, then the row's next version). So every contended
-- row is reached through a queue (join_queue): a transaction-scoped advisory lock, granted in arrival order
-- after one wait bounded by the time left; its holder is then the only writer of ours waiting on the row,
-- and waits on it at most once, again bounded by the time left. A wait that reaches the deadline fails with
-- 55P03 (lock_not_available) and the transaction rolls back at once.
--
-- SQLSTATE: OCT00 DEADLINE_EXCEEDED (the deadline passed before a wait began).

-- 1. The deadline of this transaction, kept as seconds since the epoch in a setting of its own (so the
--    triggers a writer fires see it too). A call without one clears what an earlier call of the transaction set.
create or replace function public.start_deadline(p_deadline timestamptz, p_work text)
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  if p_deadline is null then
    perform set_config('order_service.deadline', '', true);
    return;
  end if;
  if clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00',
      message = format('DEADLINE_EXCEEDED: the caller''s deadline passed before this %s started', p_work);
  end if;
  perform set_config('order_service.deadline', extract(epoch from p_deadline)::text, true);
  perform public.bound_lock_wait();
end;
$$;

-- 2. Before a statement that may wait for a lock: lock_timeout becomes the time left to the deadline (for
--    this transaction only); past the deadline the call gives up at once. No deadline: nothing changes.
create or replace function public.bound_lock_wait()
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_deadline timestamptz := to_timestamp(
    nullif(current_setting('order_service.deadline', true), '')::double precision
  );
begin
  if v_deadline is null then
    return;
  end if;
  if clock_timestamp() >= v_deadline then
    raise exception using errcode = 'OCT00',
      message = 'DEADLINE_EXCEEDED: the caller''s deadline passed while this call waited';
  end if;
  perform set_config(
    'lock_timeout',
    greatest(1, ceil(extract(epoch from v_deadline - clock_timestamp()) * 1000))::bigint::text,
    true
  );
end;
$$;

-- 3. Joins the queue named p_queue (rank 2, 4 or 8 above) and holds its place to commit: one wait, in
--    arrival order, bounded by the deadline. Joining a queue the transaction holds already never waits.
create or replace function public.join_queue(p_queue text)
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform public.bound_lock_wait();
  perform pg_advisory_xact_lock(hashtextextended(p_queue, 0));
  perform public.bound_lock_wait();
end;
$$;

-- 4. The restock of a cancelled order (whole, as before, in rank 4 then 5): its store's queue first, then
--    its stock rows in the fixed order, each wait bounded by the deadline of the writer that cancelled it.
create or replace function public.restock_cancelled_order()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_taken record;
begin
  if exists (select 1 from public.order_items i where i.order_id = new.id and i.stock_source is not null) then
    perform public.join_queue('store/' || new.store_id::text);
  end if;
  for v_taken in
    select i.product_id, case when i.stock_source = 'variant' then i.variant_id end as variant_id,
      sum(i.quantity)::integer as quantity
    from public.order_items i
    where i.order_id = new.id and i.stock_source is not null
    group by 1, 2
    order by 1, 2 nulls first
  loop
    perform public.bound_lock_wait();
    -- a row whose tracking was turned off since (null) stays untracked: null + n is null
    if v_taken.variant_id is null then
      update public.products p set stock_quantity = p.stock_quantity + v_taken.quantity
      where p.id = v_taken.product_id;
    else
      update public.product_variants v set stock_quantity = v.stock_quantity + v_taken.quantity
      where v.id = v_taken.variant_id;
    end if;
  end loop;
  return null;
end;
$$;

revoke execute on function public.start_deadline(timestamptz, text) from public, anon, authenticated, service_role;
revoke execute on function public.bound_lock_wait() from public, anon, authenticated, service_role;
revoke execute on function public.join_queue(text) from public, anon, authenticated, service_role;
revoke execute on function public.restock_cancelled_order() from public, anon, authenticated, service_role;
