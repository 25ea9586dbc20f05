-- Orders nobody paid are cancelled after a time, as a checkout platform releases what an abandoned checkout
-- held: a `gateway` order still `payment_pending` UNPAID_GATEWAY_ORDER_MINUTES after it was placed (default
-- 30: the buyer left Razorpay Checkout), a `upi_direct` one UNPAID_UPI_DIRECT_ORDER_HOURS after (default 72:
-- the seller never confirmed the transfer). The outbox drain's run (every minute from pg_cron on Supabase,
-- `deno task outbox` locally) calls cancel_unpaid_orders before it sends: each order is moved through
-- move_order_status as the system's move, so the history says `system`, the restock trigger puts its stock
-- back, and the buyer's `cancelled` e-mail is written and claimed for the run to send.
-- An order with any payment in the ledger is left alone: money arrived for it (of the wrong amount, say),
-- and a person reviews it. An order locked by a move or a payment in progress is skipped (`skip locked`),
-- and taken by a later run if it is still unpaid then.
--
-- SQLSTATE: OCN00 VALIDATION_FAILED (detail: [{ path, message }]).

-- 1. The run's scan reads only the orders awaiting payment, oldest first. (A move out of payment_pending is
--    then not a HOT update: one index entry per order, once.)
create index orders_payment_pending_created_at_idx on public.orders (created_at)
  where status = 'payment_pending';

-- 2. Cancels up to p_limit unpaid orders; a window of 0 turns its method's cancellation off. The deadline
--    works as the other writers': past it the call gives up, or rolls back rather than commit. Returns
--    { cancelled: [{ orderId, orderNumber, paymentMethod }], emails: [<claimed outbox messages>] }.
create or replace function public.cancel_unpaid_orders(
  p_gateway_minutes integer,
  p_upi_direct_hours integer,
  p_limit integer default 100,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_gateway_before timestamptz;
  v_upi_direct_before timestamptz;
  v_order record;
  v_move jsonb;
  v_cancelled jsonb := '[]'::jsonb;
  v_emails jsonb := '[]'::jsonb;
begin
  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller''s deadline passed before the cancellation started';
  end if;
  if p_gateway_minutes is null or p_gateway_minutes not between 0 and 525600 then
    v_issues := v_issues || jsonb_build_object(
      'path', 'gatewayMinutes', 'message', 'gatewayMinutes must be a whole number from 0 to 525600'
    );
  end if;
  if p_upi_direct_hours is null or p_upi_direct_hours not between 0 and 8760 then
    v_issues := v_issues || jsonb_build_object(
      'path', 'upiDirectHours', 'message', 'upiDirectHours must be a whole number from 0 to 8760'
    );
  end if;
  if p_limit is null or p_limit not between 1 and 1000 then
    v_issues := v_issues || jsonb_build_object('path', 'limit', 'message', 'limit must be from 1 to 1000');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the call is invalid', detail = v_issues::text;
  end if;

  -- null: that method's cancellation is off
  v_gateway_before := case when p_gateway_minutes > 0 then now() - make_interval(mins => p_gateway_minutes) end;
  v_upi_direct_before := case when p_upi_direct_hours > 0 then now() - make_interval(hours => p_upi_direct_hours) end;
  if v_gateway_before is null and v_upi_direct_before is null then
    return jsonb_build_object('cancelled', v_cancelled, 'emails', v_emails);
  end if;

  for v_order in
    select o.id, o.order_number, o.payment_method
    from public.orders o
    where o.status = 'payment_pending'
      and o.created_at < greatest(v_gateway_before, v_upi_direct_before)
      and (
        (o.payment_method = 'gateway' and o.created_at < v_gateway_before)
        or (o.payment_method = 'upi_direct' and o.created_at < v_upi_direct_before)
      )
      and not exists (select 1 from public.payments p where p.order_id = o.id)
    order by o.created_at
    limit p_limit
    for update of o skip locked
  loop
    v_move := public.move_order_status(
      v_order.id, 'cancelled', 'system',
      case v_order.payment_method
        when 'gateway' then format('No payment arrived through the payment gateway within %s minutes of the order.', p_gateway_minutes)
        else format('The UPI transfer was not confirmed within %s hours of the order.', p_upi_direct_hours)
      end
    );
    v_cancelled := v_cancelled || jsonb_build_object(
      'orderId', v_order.id, 'orderNumber', v_order.order_number, 'paymentMethod', v_order.payment_method
    );
    v_emails := v_emails || (v_move -> 'emails');
  end loop;
  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before the cancellation could commit';
  end if;
  return jsonb_build_object('cancelled', v_cancelled, 'emails', v_emails);
end;
$$;

revoke execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz) to service_role;
