-- confirm_payment (replaced whole, from 20261126000400_order_moves_in_lock_order.sql, its deadline and queues
-- kept) records the method actually used and writes the refund of money due back:
-- - p_method: the payment's own method as the gateway reports it, kept lower-case in payments.method (a
--   method the ledger cannot read is kept as unknown, null, rather than refuse a real payment), with
--   payments.fee_shortfall: the fee at that method's rate above the fee the order was priced with, in paise.
-- - p_provider_order_id: the gateway's order the payment paid. When p_order_id names no order (the payment's
--   notes lacked our id), the order is the one start-payment kept that gateway order for.
-- - a payment whose money is due back (duplicate_payment, order_cancelled, method_mismatch, and now
--   amount_mismatch and currency_mismatch too) gets its `pending` refund row in this transaction.
-- The old signature is dropped: a call without the new arguments reaches the new function (they default).
-- Returns { replayed, outcome, orderId, orderNumber, orderStatus, refundDue, method, feeShortfall, refund,
-- emails }; `refund` is the refund this event wrote ({ refundId, amount, currency, status }), else null.

drop function public.confirm_payment(text, bigint, text, text, text, text, timestamptz);

create or replace function public.confirm_payment(
  p_order_id text,
  p_amount_minor bigint,
  p_currency text,
  p_provider text,
  p_provider_payment_id text,
  p_event_id text,
  p_deadline timestamptz default null,
  p_method text default null,
  p_provider_order_id text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_order_id uuid := case
    when p_order_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then p_order_id::uuid
  end;
  v_currency text := upper(p_currency);
  -- a method the ledger cannot read is unknown, not a reason to refuse money that arrived
  v_method text := case when lower(p_method) ~ '^[a-z][a-z0-9_]{0,39}$' then lower(p_method) end;
  v_existing record;
  v_earlier_outcome text;
  v_earlier_order_id uuid;
  v_order record;
  v_outcome text;
  v_refund_due boolean;
  v_fee_shortfall bigint;
  v_payment_id uuid;
  v_refund jsonb;
  v_move jsonb;
  v_emails jsonb := '[]'::jsonb;
begin
  perform public.start_deadline(p_deadline, 'payment');

  if p_provider is null or p_provider !~ '^[a-z][a-z0-9_]{1,31}$' then
    v_issues := v_issues || jsonb_build_object('path', 'provider', 'message', 'provider must be a lower-case name');
  end if;
  if not public.is_one_line_text(p_event_id, 255) then
    v_issues := v_issues || jsonb_build_object('path', 'eventId', 'message', 'eventId must be one line of 1 to 255 characters');
  end if;
  if not public.is_one_line_text(p_provider_payment_id, 255) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'providerPaymentId', 'message', 'providerPaymentId must be one line of 1 to 255 characters'
    );
  end if;
  if p_amount_minor is null or p_amount_minor < 0 or p_amount_minor > 99999999999999 then
    v_issues := v_issues || jsonb_build_object('path', 'amount', 'message', 'amount must be a whole number of minor units');
  end if;
  if v_currency is null or v_currency !~ '^[A-Z]{3}$' then
    v_issues := v_issues || jsonb_build_object('path', 'currency', 'message', 'currency must be an ISO 4217 code');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the payment is invalid', detail = v_issues::text;
  end if;

  -- 1. One decision per event: the same event waits here for the first, then answers as it did.
  perform public.join_queue('payment/' || p_provider || '/' || p_event_id);
  select p.outcome, p.refund_due, p.order_id, p.method, p.fee_shortfall, o.order_number, o.status,
    (select public.refund_answer(r) from public.refunds r where r.payment_id = p.id) as refund
  into v_existing
  from public.payments p left join public.orders o on o.id = p.order_id
  where p.provider = p_provider and p.provider_event_id = p_event_id;
  if found then
    return jsonb_build_object(
      'replayed', true, 'outcome', v_existing.outcome, 'orderId', v_existing.order_id,
      'orderNumber', v_existing.order_number, 'orderStatus', v_existing.status,
      'refundDue', v_existing.refund_due, 'method', v_existing.method,
      'feeShortfall', v_existing.fee_shortfall, 'refund', v_existing.refund, 'emails', '[]'::jsonb
    );
  end if;

  -- 2. One decision per payment: another event of it waits here for the first, then reads its row.
  perform public.join_queue('payment-id/' || p_provider || '/' || p_provider_payment_id);

  -- The payment's notes named no order of ours: the order start-payment opened this gateway order for.
  if p_provider_order_id is not null
    and (v_order_id is null or not exists (select 1 from public.orders o where o.id = v_order_id)) then
    select k.order_id into v_order_id
    from public.payment_provider_orders k
    where k.provider = p_provider and k.provider_order_id = p_provider_order_id;
  end if;

  -- 3. The order, locked: a seller's move or another payment of it waits, or is waited for (its queue
  --    first, then its row: one wait each, bounded by the deadline).
  if v_order_id is not null then
    perform public.join_queue('order/' || v_order_id::text);
  end if;
  select o.id, o.order_number, o.status, o.payment_method, o.total_amount, o.checkout_fee, o.final_amount,
    o.currency
  into v_order
  from public.orders o where o.id = v_order_id
  for update;
  if found then
    -- the payment's first event that found an order (one that found none decided nothing about it)
    select p.outcome, p.order_id into v_earlier_outcome, v_earlier_order_id
    from public.payments p
    where p.provider = p_provider and p.provider_payment_id = p_provider_payment_id and p.order_id is not null
    order by p.received_at, p.id
    limit 1;
  end if;
  v_outcome := case
    when v_order.id is null then 'order_not_found'
    when v_earlier_outcome in ('paid', 'already_paid') and v_earlier_order_id = v_order.id then 'already_paid'
    when v_earlier_outcome is not null then 'already_recorded'
    -- the buyer was to pay another way (the seller confirms a upi_direct transfer): this money goes back
    when v_order.payment_method <> 'gateway' then 'method_mismatch'
    when v_order.status = 'cancelled' then 'order_cancelled'
    -- marked paid by the seller with no payment recorded: this one is the order's payment when it matches
    when v_order.status in ('paid', 'processing', 'shipped', 'delivered') then
      case
        when exists (select 1 from public.payments p where p.order_id = v_order.id) then 'duplicate_payment'
        when v_currency <> v_order.currency then 'currency_mismatch'
        when p_amount_minor <> (v_order.final_amount * 100)::bigint then 'amount_mismatch'
        else 'paid'
      end
    when v_currency <> v_order.currency then 'currency_mismatch'
    when p_amount_minor <> (v_order.final_amount * 100)::bigint then 'amount_mismatch'
    when not public.order_status_transition_allowed(v_order.status, 'paid') then 'not_payable'
    else 'paid'
  end;
  v_refund_due := p_amount_minor > 0 and v_outcome in (
    'duplicate_payment', 'order_cancelled', 'method_mismatch', 'amount_mismatch', 'currency_mismatch'
  );
  -- what the method used costs above the fee charged (in paise); unknown without a method or a gateway order
  v_fee_shortfall := case
    when v_method is not null and v_order.payment_method = 'gateway' then greatest(0, (
      (public.checkout_fee(v_order.total_amount, 'gateway', public.gateway_rate_method(v_method))
        - v_order.checkout_fee) * 100
    )::bigint)
  end;

  insert into public.payments (
    provider, provider_event_id, provider_payment_id, order_id, amount, currency, expected_amount,
    expected_currency, order_status, outcome, refund_due, method, fee_shortfall
  ) values (
    p_provider, p_event_id, p_provider_payment_id, v_order.id, p_amount_minor / 100.0, v_currency,
    v_order.final_amount, v_order.currency, v_order.status, v_outcome, v_refund_due, v_method, v_fee_shortfall
  )
  returning id into v_payment_id;

  -- the money goes back: its refund, for the drain's run to issue
  if v_refund_due then
    with inserted as (
      insert into public.refunds (payment_id, order_id, amount, currency)
      values (v_payment_id, v_order.id, p_amount_minor / 100.0, v_currency)
      returning *
    )
    select public.refund_answer(i) into v_refund from inserted i;
  end if;

  if v_outcome = 'paid' and v_order.status = 'payment_pending' then
    v_move := public.move_order_status(
      v_order.id, 'paid', 'payment_gateway', format('%s payment %s', p_provider, p_provider_payment_id)
    );
    v_emails := v_move -> 'emails';
  end if;

  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this payment could commit';
  end if;
  return jsonb_build_object(
    'replayed', false, 'outcome', v_outcome, 'orderId', v_order.id, 'orderNumber', v_order.order_number,
    'orderStatus', case
      when v_outcome = 'paid' and v_order.status = 'payment_pending' then 'paid'::public.order_status
      else v_order.status
    end,
    'refundDue', v_refund_due, 'method', v_method, 'feeShortfall', v_fee_shortfall, 'refund', v_refund,
    'emails', v_emails
  );
end;
$$;

revoke execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz, text, text)
  from public, anon, authenticated;
grant execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz, text, text)
  to service_role;
