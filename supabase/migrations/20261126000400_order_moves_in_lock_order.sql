-- update_order_status and confirm_payment in the lock order and under the deadline of
-- 20261126000300_lock_order.sql (both replaced whole; nothing else changes):
-- - each records its deadline with start_deadline (OCT00 past it, as before), so every wait it makes,
--   the restock trigger's included, is bounded by the time left;
-- - each reaches the order's row through the order's queue `order/<id>` (rank 2): racing moves and
--   payments of one order line up there in one wait each, instead of waiting on the row's tuple lock and
--   then again on the transaction ahead, each wait with the whole lock_timeout;
-- - confirm_payment's locks on the provider's event id and payment id (rank 1) are queues too, each
--   bounded by the time left when it begins.

create or replace function public.update_order_status(
  p_status text,
  p_order_id uuid default null,
  p_store_id uuid default null,
  p_order_number text default null,
  p_note text default null,
  p_carrier text default null,
  p_tracking_number text default null,
  p_tracking_url text default null,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_status public.order_status;
  v_order_id uuid := p_order_id;
  v_result jsonb;
begin
  perform public.start_deadline(p_deadline, 'move');

  if p_status is null or not (p_status = any (enum_range(null::public.order_status)::text[])) then
    v_issues := v_issues || jsonb_build_object('path', 'status', 'message', 'status must be an order status');
  else
    v_status := p_status::public.order_status;
  end if;
  if (p_order_id is null) = (p_store_id is null or p_order_number is null)
    or (p_order_id is not null and (p_store_id is not null or p_order_number is not null)) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'orderId', 'message', 'give orderId, or storeId and orderNumber, not both'
    );
  end if;
  if p_note is not null and not public.is_one_line_text(p_note, 500) then
    v_issues := v_issues || jsonb_build_object('path', 'note', 'message', 'note must be one line of 1 to 500 characters');
  end if;
  if v_status = 'cancelled' and p_note is null then
    v_issues := v_issues || jsonb_build_object('path', 'note', 'message', 'a cancellation needs its reason in note');
  end if;
  if v_status is distinct from 'shipped' and coalesce(p_carrier, p_tracking_number, p_tracking_url) is not null then
    v_issues := v_issues || jsonb_build_object(
      'path', 'status', 'message', 'carrier, trackingNumber and trackingUrl belong to a move to shipped'
    );
  end if;
  if p_carrier is not null and not public.is_one_line_text(p_carrier, 100) then
    v_issues := v_issues || jsonb_build_object('path', 'carrier', 'message', 'carrier must be one line of 1 to 100 characters');
  end if;
  if p_tracking_number is not null and not public.is_one_line_text(p_tracking_number, 100) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'trackingNumber', 'message', 'trackingNumber must be one line of 1 to 100 characters'
    );
  end if;
  if p_tracking_url is not null and not (p_tracking_url ~ '^https?://[^\s]+$' and length(p_tracking_url) <= 2048) then
    v_issues := v_issues || jsonb_build_object('path', 'trackingUrl', 'message', 'trackingUrl must be an http(s) URL');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the move is invalid', detail = v_issues::text;
  end if;

  if v_order_id is null then
    select o.id into v_order_id from public.orders o
    where o.store_id = p_store_id and o.order_number = p_order_number;
    if not found then
      raise exception using errcode = 'OCO04', message = 'ORDER_NOT_FOUND: no order with this number in this store',
        detail = jsonb_build_object('storeId', p_store_id, 'orderNumber', p_order_number)::text;
    end if;
  end if;

  -- rank 2 of the lock order: the order's queue, then (in move_order_status) its row, one wait each
  perform public.join_queue('order/' || v_order_id::text);
  v_result := public.move_order_status(
    v_order_id, v_status, 'seller', p_note, p_carrier, p_tracking_number, p_tracking_url
  );

  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this move could commit';
  end if;
  return v_result;
end;
$$;

revoke execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  to service_role;

-- confirm_payment as 20261123002500_payment_decisions.sql decided it, in the lock order. Returns
-- { replayed, outcome, orderId, orderNumber, orderStatus, refundDue, emails }.
create or replace function public.confirm_payment(
  p_order_id text,
  p_amount_minor bigint,
  p_currency text,
  p_provider text,
  p_provider_payment_id text,
  p_event_id text,
  p_deadline timestamptz default null
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
  v_existing record;
  v_earlier_outcome text;
  v_earlier_order_id uuid;
  v_order record;
  v_outcome text;
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
  select p.outcome, p.refund_due, p.order_id, o.order_number, o.status into v_existing
  from public.payments p left join public.orders o on o.id = p.order_id
  where p.provider = p_provider and p.provider_event_id = p_event_id;
  if found then
    return jsonb_build_object(
      'replayed', true, 'outcome', v_existing.outcome, 'orderId', v_existing.order_id,
      'orderNumber', v_existing.order_number, 'orderStatus', v_existing.status,
      'refundDue', v_existing.refund_due, 'emails', '[]'::jsonb
    );
  end if;

  -- 2. One decision per payment: another event of it waits here for the first, then reads its row.
  perform public.join_queue('payment-id/' || p_provider || '/' || p_provider_payment_id);

  -- 3. The order, locked: a seller's move or another payment of it waits, or is waited for (its queue
  --    first, then its row: one wait each, bounded by the deadline).
  if v_order_id is not null then
    perform public.join_queue('order/' || v_order_id::text);
  end if;
  select o.id, o.order_number, o.status, o.payment_method, o.final_amount, o.currency into v_order
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

  insert into public.payments (
    provider, provider_event_id, provider_payment_id, order_id, amount, currency, expected_amount,
    expected_currency, order_status, outcome, refund_due
  ) values (
    p_provider, p_event_id, p_provider_payment_id, v_order.id, p_amount_minor / 100.0, v_currency,
    v_order.final_amount, v_order.currency, v_order.status, v_outcome,
    v_outcome in ('duplicate_payment', 'order_cancelled', 'method_mismatch')
  );

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
    'refundDue', v_outcome in ('duplicate_payment', 'order_cancelled', 'method_mismatch'), 'emails', v_emails
  );
end;
$$;

revoke execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz)
  to service_role;
