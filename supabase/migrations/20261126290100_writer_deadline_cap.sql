-- Every writer's deadline is at most 6 s from its start (DATABASE_TIMEOUT_MS's default), whatever its caller
-- gives. A direct caller's deadline was optional: through /rest/v1/rpc with the service key, create_order
-- without `deadline` (or null, or one an hour away), update_order_status and confirm_payment with
-- p_deadline null, waited for a held row until the 8 s statement timeout. start_deadline now records the
-- earlier of the caller's deadline and its own start plus 6 s, so every wait of every writer that starts
-- with it (create_order, update_order_status, confirm_payment, cancel_unpaid_orders and the writers after
-- them) ends by then, and lock_timeout is set from the first statement on. The function's callers give 6 s
-- at most (DATABASE_TIMEOUT_MS may not exceed 6000) and PAYMENT_WEBHOOK_TIMEOUT_MS 2.5 s: nothing they ask
-- for is cut short. deadline_passed() tells a writer, before it returns, whether its recorded deadline has
-- passed (for the check that rolls back rather than commit late).
--
-- SQLSTATE: OCT00 DEADLINE_EXCEEDED (the deadline passed before a wait began), as before.

-- 1. The deadline of this transaction: the earlier of p_deadline and now + 6 s (none given: now + 6 s).
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

-- 2. Whether the deadline start_deadline recorded for this transaction has passed (false without one).
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

revoke execute on function public.start_deadline(timestamptz, text) from public, anon, authenticated, service_role;
revoke execute on function public.deadline_passed() from public, anon, authenticated, service_role;
