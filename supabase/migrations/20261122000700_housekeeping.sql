-- Housekeeping: idempotency keys and rate-limit windows are only needed for a while, and without a purge
-- both tables grow with every order. `deno task outbox` (the job run from cron) calls this after each drain.
-- Idempotency keys are kept at least 24 hours whatever the caller asks (the contract's promise).

create or replace function public.purge_expired_order_guards(
  p_idempotency_hours integer default 168,
  p_rate_limit_hours integer default 48
)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_keys integer;
  v_windows integer;
begin
  delete from public.idempotency_keys
  where created_at < now() - make_interval(hours => greatest(p_idempotency_hours, 24));
  get diagnostics v_keys = row_count;
  -- a window is kept this long after it started: longer than any window the limits are configured with
  delete from public.order_rate_limits
  where window_start < now() - make_interval(hours => greatest(p_rate_limit_hours, 1));
  get diagnostics v_windows = row_count;
  return jsonb_build_object('idempotencyKeys', v_keys, 'rateLimitWindows', v_windows);
end;
$$;

revoke execute on function public.purge_expired_order_guards(integer, integer) from public, anon, authenticated;
grant execute on function public.purge_expired_order_guards(integer, integer) to service_role;
