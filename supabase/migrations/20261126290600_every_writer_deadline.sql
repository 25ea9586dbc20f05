-- The deadline rule of 20261126000300_lock_order.sql for every writer that did not follow it whole, each
-- replaced whole from its newest definition with only these changes:
-- - begin_payment and keep_provider_order (20261126100000_payment_provider_orders.sql) set lock_timeout from
--   their caller's deadline only when one was given: through /rest/v1/rpc with the service key and no
--   p_deadline they waited for a held row until the statement timeout. They now start with start_deadline
--   (the earlier of p_deadline and their start plus 6 s, 20261126290100_writer_deadline_cap.sql), and reach
--   their contended rows through queues, as the other writers do, so each is one wait bounded by the time
--   left: begin_payment its rate-limit bucket behind `rate-limit/payment-ip:<ip>` (rank 8), keep_provider_order
--   the order's row behind `order/<id>` (rank 2; it held the row FOR SHARE, behind a move's FOR UPDATE).
-- - record_refund_result (20261126150400_refund_issuing.sql) had no deadline at all: it now has the database's
--   own (6 s from its start) and reaches its refund row through `refund/<id>`, as record_refund_event does.
-- - update_order_status (20261126000400), confirm_payment (20261126150100) and record_refund_event
--   (20261126150400) checked the caller's p_deadline before returning, so with none given they never checked:
--   the check is now against the deadline start_deadline recorded (deadline_passed), the 6 s cap included.
-- Nothing else changes: answers, SQLSTATEs, grants.

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

  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this move could commit';
  end if;
  return v_result;
end;
$$;

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
    -- the seller hears of it too, Reply-To the buyer (not when the seller marked it paid: they know),
    -- claimed for the caller as the buyer's `paid` e-mail is
    with inserted as (
      insert into public.email_outbox (order_id, kind, to_email, reply_to, payload, status, claimed_at, claim_token)
      select o.id, 'seller_paid', s.owner_email, o.buyer_email, public.seller_paid_email_data(v_payment_id),
        'sending', now(), gen_random_uuid()
      from public.orders o join public.stores s on s.id = o.store_id
      where o.id = v_order.id
      on conflict (order_id, kind, refund_id) do nothing
      returning *
    )
    select v_emails || coalesce(jsonb_agg(public.email_outbox_message(i)), '[]'::jsonb) into v_emails
    from inserted i;
  end if;

  if public.deadline_passed() then
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

create or replace function public.begin_payment(
  p_order_id text,
  p_client_ip text,
  p_ip_limit integer,
  p_ip_window_seconds integer,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_order_id uuid := case
    when p_order_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then p_order_id::uuid
  end;
  v_client_ip text := nullif(p_client_ip, '');
  v_retry_after integer;
  v_order jsonb;
  v_kept jsonb;
begin
  perform public.start_deadline(p_deadline, 'payment step');

  -- 1. The caller's count in the current fixed window, as create_order counts orders per IP.
  --    Its bucket is shared by every store: behind its queue (rank 8), one wait bounded by the deadline.
  if v_client_ip is not null and coalesce(p_ip_limit, 0) > 0 and coalesce(p_ip_window_seconds, 0) > 0 then
    perform public.join_queue('rate-limit/payment-ip:' || v_client_ip);
    with bumped as (
      insert into public.order_rate_limits as r (bucket, window_start, hits)
      values (
        'payment-ip:' || v_client_ip,
        to_timestamp(floor(extract(epoch from now()) / p_ip_window_seconds) * p_ip_window_seconds),
        1
      )
      on conflict (bucket, window_start) do update set hits = r.hits + 1
      returning r.window_start, r.hits
    )
    select ceil(extract(epoch from (b.window_start + make_interval(secs => p_ip_window_seconds)) - now()))::integer
    into v_retry_after
    from bumped b
    where b.hits > p_ip_limit;
    if v_retry_after is not null then
      raise exception using errcode = 'OCR29', message = 'RATE_LIMITED: too many payment calls from this client',
        detail = jsonb_build_object('retryAfterSeconds', greatest(v_retry_after, 1))::text;
    end if;
  end if;

  -- 2. What the payment functions decide from.
  select jsonb_build_object(
    'orderId', o.id, 'orderNumber', o.order_number, 'storeId', o.store_id, 'storeName', s.name,
    'status', o.status, 'paymentMethod', o.payment_method, 'gatewayMethod', o.gateway_method,
    'finalAmountMinor', (o.final_amount * 100)::bigint, 'currency', o.currency
  ) into v_order
  from public.orders o join public.stores s on s.id = o.store_id
  where o.id = v_order_id;
  select jsonb_build_object(
    'provider', k.provider, 'providerOrderId', k.provider_order_id,
    'amountMinor', (k.amount * 100)::bigint, 'currency', k.currency
  ) into v_kept
  from public.payment_provider_orders k where k.order_id = v_order_id;

  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this payment step could commit';
  end if;
  return jsonb_build_object('order', v_order, 'providerOrder', v_kept);
end;
$$;

create or replace function public.keep_provider_order(
  p_order_id uuid,
  p_provider text,
  p_provider_order_id text,
  p_amount_minor bigint,
  p_currency text,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_order record;
  v_issues jsonb := '[]'::jsonb;
  v_kept jsonb;
begin
  perform public.start_deadline(p_deadline, 'payment step');

  if p_provider is null or p_provider !~ '^[a-z][a-z0-9_]{1,31}$' then
    v_issues := v_issues || jsonb_build_object('path', 'provider', 'message', 'provider must be a lower-case name');
  end if;
  if not public.is_one_line_text(p_provider_order_id, 255) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'providerOrderId', 'message', 'providerOrderId must be one line of 1 to 255 characters'
    );
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the provider order is invalid', detail = v_issues::text;
  end if;

  -- The order, held until commit: a cancellation cannot slip in between the check and the insert. Reached
  -- through the order's queue (rank 2), as the moves reach it: one wait, bounded by the deadline.
  perform public.join_queue('order/' || p_order_id::text);
  select o.id, o.status, o.payment_method, o.final_amount, o.currency into v_order
  from public.orders o where o.id = p_order_id
  for share;
  if not found then
    raise exception using errcode = 'OCO04', message = 'ORDER_NOT_FOUND: no order with this id',
      detail = jsonb_build_object('orderId', p_order_id)::text;
  end if;
  if v_order.payment_method <> 'gateway' or v_order.status <> 'payment_pending' then
    raise exception using errcode = 'OCY09', message = 'ORDER_NOT_PAYABLE: the order does not await a gateway payment',
      detail = jsonb_build_object('status', v_order.status, 'paymentMethod', v_order.payment_method)::text;
  end if;
  -- the provider's order is for this order's amount, whoever calls
  if p_amount_minor is distinct from (v_order.final_amount * 100)::bigint
    or upper(p_currency) is distinct from v_order.currency then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the provider order is invalid',
      detail = jsonb_build_array(jsonb_build_object(
        'path', 'amount', 'message', 'the provider order must be for the order''s final amount and currency'
      ))::text;
  end if;

  insert into public.payment_provider_orders (order_id, provider, provider_order_id, amount, currency)
  values (p_order_id, p_provider, p_provider_order_id, p_amount_minor / 100.0, v_order.currency)
  on conflict (order_id) do nothing;

  -- the kept one: this call's, or the one a racing call kept first (committed before our insert gave way)
  select jsonb_build_object(
    'provider', k.provider, 'providerOrderId', k.provider_order_id,
    'amountMinor', (k.amount * 100)::bigint, 'currency', k.currency
  ) into v_kept
  from public.payment_provider_orders k where k.order_id = p_order_id;

  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this payment step could commit';
  end if;
  return v_kept;
end;
$$;

create or replace function public.record_refund_result(
  p_refund_id uuid,
  p_claim_token uuid,
  p_provider_refund_id text default null,
  p_provider_status text default null,
  p_error text default null,
  p_release boolean default false,
  p_max_attempts integer default 10
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_refund public.refunds;
  v_status text;
  v_emails jsonb := '[]'::jsonb;
begin
  -- no deadline of its caller's: the database's own, 6 s from its start
  perform public.start_deadline(null, 'refund result');
  if p_max_attempts is null or p_max_attempts not between 1 and 100
    or num_nonnulls(p_provider_refund_id, p_error) + (case when p_release then 1 else 0 end) <> 1 then
    raise exception 'record_refund_result: one of a provider refund id, an error or a release; at most 100 attempts'
      using errcode = '22023';
  end if;
  if p_provider_refund_id is not null and not public.is_one_line_text(p_provider_refund_id, 255) then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the refund result is invalid',
      detail = jsonb_build_array(jsonb_build_object(
        'path', 'providerRefundId', 'message', 'providerRefundId must be one line of 1 to 255 characters'
      ))::text;
  end if;

  -- its row through the refund's queue, as record_refund_event reaches it: one wait, bounded by the deadline
  perform public.join_queue('refund/' || p_refund_id::text);
  select r.* into v_refund from public.refunds r where r.id = p_refund_id for update;
  if not found or v_refund.claim_token is distinct from p_claim_token then
    return jsonb_build_object('recorded', false, 'refundId', p_refund_id);
  end if;

  if p_release then
    update public.refunds r set claim_token = null, claim_expires_at = null
    where r.id = v_refund.id
    returning r.* into v_refund;
  elsif p_provider_refund_id is not null then
    v_status := case p_provider_status when 'processed' then 'processed' when 'failed' then 'failed' else 'issued' end;
    update public.refunds r
    set status = v_status, provider_refund_id = p_provider_refund_id, attempts = r.attempts + 1,
      last_attempt_at = now(), last_error = null, claim_token = null, claim_expires_at = null
    where r.id = v_refund.id
    returning r.* into v_refund;
    -- the gateway holds it: the buyer's refund e-mail, once per refund, claimed for the drain to send
    if v_status <> 'failed' then
      v_emails := public.queue_refund_email(v_refund.id, true);
    end if;
  else
    update public.refunds r
    set status = case when r.attempts + 1 >= p_max_attempts then 'failed' else 'pending' end,
      attempts = r.attempts + 1, last_attempt_at = now(),
      last_error = left(regexp_replace(p_error, '[\x01-\x1f\x7f-\x9f\u2028\u2029]+', ' ', 'g'), 500),
      claim_token = null, claim_expires_at = null
    where r.id = v_refund.id
    returning r.* into v_refund;
  end if;

  return jsonb_build_object(
    'recorded', true, 'refundId', v_refund.id, 'orderId', v_refund.order_id, 'status', v_refund.status,
    'attempts', v_refund.attempts, 'emails', v_emails
  );
end;
$$;

create or replace function public.record_refund_event(
  p_provider text,
  p_provider_payment_id text,
  p_provider_refund_id text,
  p_receipt text,
  p_status text,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_receipt uuid := case
    when p_receipt ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then p_receipt::uuid
  end;
  v_refund public.refunds;
  v_status text;
begin
  perform public.start_deadline(p_deadline, 'refund event');
  if p_provider is null or p_provider !~ '^[a-z][a-z0-9_]{1,31}$' then
    v_issues := v_issues || jsonb_build_object('path', 'provider', 'message', 'provider must be a lower-case name');
  end if;
  if not public.is_one_line_text(p_provider_payment_id, 255) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'providerPaymentId', 'message', 'providerPaymentId must be one line of 1 to 255 characters'
    );
  end if;
  if not public.is_one_line_text(p_provider_refund_id, 255) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'providerRefundId', 'message', 'providerRefundId must be one line of 1 to 255 characters'
    );
  end if;
  if p_status is null or p_status not in ('processed', 'failed') then
    v_issues := v_issues || jsonb_build_object('path', 'status', 'message', 'status must be processed or failed');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the refund event is invalid', detail = v_issues::text;
  end if;

  -- ours: by the receipt we gave it, else by the gateway's id; only a refund of the payment the event names
  select r.* into v_refund
  from public.refunds r join public.payments p on p.id = r.payment_id
  where (r.id = v_receipt or r.provider_refund_id = p_provider_refund_id)
    and p.provider = p_provider and p.provider_payment_id = p_provider_payment_id
  order by (r.id = v_receipt) desc nulls last
  limit 1;
  if not found then
    return jsonb_build_object('found', false, 'changed', false);
  end if;
  -- then locked: a retried event waits in the refund's queue, one wait each, bounded by the deadline
  perform public.join_queue('refund/' || v_refund.id::text);
  select r.* into v_refund from public.refunds r where r.id = v_refund.id for update;

  v_status := case
    -- another refund of the gateway's under our receipt: not this one's word
    when v_refund.provider_refund_id is distinct from p_provider_refund_id and v_refund.provider_refund_id is not null
      then v_refund.status
    when p_status = 'processed' and v_refund.status in ('pending', 'issued', 'failed') then 'processed'
    when p_status = 'failed' and v_refund.status in ('pending', 'issued') then 'failed'
    else v_refund.status
  end;
  if v_status <> v_refund.status then
    update public.refunds r
    set status = v_status, provider_refund_id = p_provider_refund_id, claim_token = null, claim_expires_at = null
    where r.id = v_refund.id;
    -- processed before the drain recorded it issued: the buyer's refund e-mail (once per refund) goes now
    if v_status = 'processed' then
      perform public.queue_refund_email(v_refund.id, false);
    end if;
  end if;

  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this refund event could commit';
  end if;
  return jsonb_build_object(
    'found', true, 'changed', v_status <> v_refund.status, 'refundId', v_refund.id,
    'orderId', v_refund.order_id, 'status', v_status
  );
end;
$$;

revoke execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  to service_role;
revoke execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz, text, text)
  from public, anon, authenticated;
grant execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz, text, text)
  to service_role;
revoke execute on function public.begin_payment(text, text, integer, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.begin_payment(text, text, integer, integer, timestamptz) to service_role;
revoke execute on function public.keep_provider_order(uuid, text, text, bigint, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.keep_provider_order(uuid, text, text, bigint, text, timestamptz) to service_role;
revoke execute on function public.record_refund_result(uuid, uuid, text, text, text, boolean, integer)
  from public, anon, authenticated;
grant execute on function public.record_refund_result(uuid, uuid, text, text, text, boolean, integer)
  to service_role;
revoke execute on function public.record_refund_event(text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.record_refund_event(text, text, text, text, text, timestamptz)
  to service_role;
