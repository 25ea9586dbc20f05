-- One global lock order for every writer, and a deadline that bounds every wait (contract, "Under
-- concurrency, at scale, on a slow day"): the order, and the deadline's and the queues' helpers.
--
-- THE LOCK ORDER. Every writer (create_order, update_order_status, confirm_payment, cancel_unpaid_orders,
-- move_order_status and the triggers they fire) takes its locks in this order and never goes back to an
-- earlier rank, so no two writers, in any mix, wait on each other in a cycle:
--   1. Its request's own advisory locks, tries that never wait where they are create_order's (its store's
--      waiter slot, then its idempotency key); confirm_payment's provider event id, then its provider
--      payment id; record_refund_event's event id.
--   2. The one order it moves: its queue `order/<id>`, then its row (FOR UPDATE); update_order_status and
--      confirm_payment, through move_order_status. cancel_unpaid_orders takes its batch with SKIP LOCKED: it
--      never waits for an order.
--   3. Catalogue rows it reads FOR KEY SHARE (create_order: the store, then each item's product and variant):
--      only a delete or a change of a key conflicts with them, and no writer of ours makes either.
--   4. Stores' queues `store/<id>`, in store id order. A store's stock rows and order counters are locked by
--      no writer of ours that does not hold its store's queue: create_order (from its stock to its commit),
--      the restock of a cancelled order, cancel_unpaid_orders (each order's store, with a try).
--   5. Stock rows, in (product id, variant id) order, a product's own row before its variants'.
--   6. The store's order counter of the year (create_order).
--   7. New rows (the order, its items, history, outbox, payment and refund rows, idempotency keys): nobody
--      else can hold a row that does not exist yet, and their unique keys are guarded by 1, 2 or 6.
--   8. Rate-limit buckets, shared by every store: each behind its queue `rate-limit/<bucket>`, in bucket
--      order, last (create_order). Taken after every store-scoped wait and held only for the statements
--      before commit, so an order stuck behind one store's rows holds no bucket another store's order needs.
--   The outbox's rows are locked only by the outbox functions (record_email_results with SKIP LOCKED;
--   claim_due_emails behind the claim's queue, a batch's rows one at a time in id order, the others SKIP
--   LOCKED), which take nothing of ranks 1-8 after them. An existing refund row is locked only by the
--   refunds' functions (55_refunds.sql), each in its own transaction before anything else but its event's
--   own queue.
--   cancel_unpaid_orders never waits (70_unpaid_orders.sql): it takes each order of its batch only if its
--   row, its store's queue (try_queue) and its stock rows are free at once, and a writer that never waits is
--   in no wait cycle, whatever order it takes its locks in.
--
-- THE DEADLINE. A writer records its deadline for its transaction (start_deadline): the earlier of its
-- caller's deadline and its own start plus 6 s (DATABASE_TIMEOUT_MS's default), so a direct caller through
-- /rest/v1/rpc without a deadline, with a null one or with one an hour away is bounded the same. Before each
-- statement that may wait for a lock it sets lock_timeout to the time left (bound_lock_wait); the triggers it
-- fires do the same. That alone is not enough: lock_timeout counts each lock wait afresh, and one row can be
-- several waits (the tuple lock behind the first waiter, then that waiter's transaction, then the row's next
-- version). So every contended row is reached through a queue (join_queue): a transaction-scoped advisory
-- lock, granted in arrival order after one wait bounded by the time left; its holder is then the only writer
-- of ours waiting on the row, and waits on it at most once, again bounded by the time left. A wait that
-- reaches the deadline fails with 55P03 (lock_not_available) and the transaction rolls back at once; a
-- writer checks deadline_passed() before it returns, and rolls back rather than commit late.
--
-- SQLSTATE: OCT00 DEADLINE_EXCEEDED (the deadline passed before a wait began).

-- The deadline of this transaction: the earlier of p_deadline and now + 6 s (none given: now + 6 s), kept
-- as seconds since the epoch in a setting of its own (so the triggers a writer fires see it too).
create or replace function public.start_deadline(p_deadline timestamptz, p_work text)
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_deadline timestamptz := least(p_deadline, clock_timestamp() + interval '6 seconds');
begin
  if clock_timestamp() >= v_deadline then
    raise exception using errcode = 'OCT00',
      message = format('DEADLINE_EXCEEDED: the caller''s deadline passed before this %s started', p_work);
  end if;
  perform set_config('order_service.deadline', extract(epoch from v_deadline)::text, true);
  perform public.bound_lock_wait();
end;
$$;

revoke execute on function public.start_deadline(timestamptz, text)
  from public, anon, authenticated, service_role;

-- Whether the deadline start_deadline recorded for this transaction has passed (false without one).
create or replace function public.deadline_passed()
returns boolean
language sql
volatile
set search_path = ''
as $$
  select coalesce(
    clock_timestamp() >= to_timestamp(nullif(current_setting('order_service.deadline', true), '')::double precision),
    false
  );
$$;

revoke execute on function public.deadline_passed() from public, anon, authenticated, service_role;

-- Before a statement that may wait for a lock: lock_timeout becomes the time left to the deadline (for this
-- transaction only); past the deadline the call gives up at once. No deadline: nothing changes.
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

revoke execute on function public.bound_lock_wait() from public, anon, authenticated, service_role;

-- Joins the queue named p_queue (rank 2, 4 or 8 above) and holds its place to commit: one wait, in arrival
-- order, bounded by the deadline. Joining a queue the transaction holds already never waits.
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

revoke execute on function public.join_queue(text) from public, anon, authenticated, service_role;

-- The try of join_queue: takes the queue `p_queue` for this transaction if nobody holds it, and says whether
-- it did; never waits. A transaction that holds it already takes it again.
create or replace function public.try_queue(p_queue text)
returns boolean
language sql
volatile
set search_path = ''
as $$
  select pg_try_advisory_xact_lock(hashtextextended(p_queue, 0));
$$;

revoke execute on function public.try_queue(text) from public, anon, authenticated, service_role;
