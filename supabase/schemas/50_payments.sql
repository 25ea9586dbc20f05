-- Payments as the gateway reports them. Every confirmation event is recorded in `payments`, once per
-- (provider, event id), whatever it means for the order; only a correct one moves the order to `paid`.
-- confirm_payment is provider-neutral (payment-webhook and verify-payment call it through their payment
-- ledger; another provider's adapter would too) and does everything in one transaction: a replayed event
-- answers what the first answered and changes nothing, and a new one is decided against the order, in the
-- lock order (its event id, then its payment id, then the order's queue and row), so two events of one
-- payment or one order serialise. Amounts arrive in minor units (hundredths, as everywhere in this service)
-- and are stored as numeric.
--
-- A refund is due once per provider payment, not once per event: Razorpay reports one payment twice
-- (payment.captured and order.paid, two event ids). The first event of a payment decides; every later event
-- of it is recorded as `already_paid` (the first paid the order) or `already_recorded`, and flags nothing.
-- payments.refund_due marks the one row per payment whose money is due back (a unique index keeps it one,
-- whatever writes the ledger), and its `pending` refund row is written in the same transaction
-- (55_refunds.sql). The gateway pays only orders whose payment method is `gateway`. A seller may mark a
-- gateway order paid before the gateway reports it (the buyer showed a receipt): the gateway's payment that
-- then arrives is the order's payment (`paid`, the order left as it is), not a duplicate to refund, unless a
-- payment was already recorded for the order.
--
-- Outcomes (payments.outcome):
--   paid               amount and currency match, and the order was payment_pending: it is now paid (actor
--                      payment_gateway) and the buyer's `paid` and the seller's `seller_paid` e-mails are
--                      queued; or the seller had marked it paid and no payment was recorded for it before:
--                      this is its payment, nothing moves
--   already_paid       the order was already paid by this same payment (another event of it): nothing to do
--   already_recorded   another event of a payment already decided otherwise: nothing new to do
--   duplicate_payment  the order was already paid (by another payment, or by the seller after another
--                      payment was recorded for it): refund due
--   order_cancelled    the order is cancelled: refund due
--   method_mismatch    the order is not to be paid through the gateway (upi_direct): refund due
--   amount_mismatch    the amount differs from the order's final amount: refund due (the buyer pays again)
--   currency_mismatch  the currency differs from the order's: refund due (the buyer pays again)
--   not_payable        the order is in a status that takes no payment (pending): not paid, for review
--   order_not_found    no order with this id (or none given): recorded for review
--
-- payments.method is the payment's own method as the gateway reports it (Razorpay: card, upi, wallet,
-- netbanking, emi, ...; null when the report does not say, or the ledger cannot read it), and
-- payments.fee_shortfall what the gateway's fee for that method costs above the fee the order was priced
-- with, in paise (Razorpay's upi and wallet are those sub-methods, every other method takes the card rate);
-- 0 when it costs no more, null when the method is unknown or the order is not a gateway order. A payment by
-- a dearer method still pays the order: the right amount arrived.
--
-- Opening a payment: one provider order per order (payment_provider_orders). start-payment creates a
-- Razorpay order for a gateway order that awaits its payment and keeps it here, so a later call (the buyer's
-- second tab, the order page's Pay button an hour later) answers the kept one without calling Razorpay
-- again, and verify-payment can check that the payment Checkout reports is for this order's Razorpay order.
-- Two racing first calls may both ask Razorpay for an order, but one row is kept per order and both answer
-- it. A payment of a kept Razorpay order is decided for that order, whatever its notes say: Checkout lets
-- the buyer's browser write the payment's notes, and notes naming another order must not pay that one.
--
-- confirm_payment, begin_payment and keep_provider_order write: security definer, executable by service_role
-- only.
--
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCO04 ORDER_NOT_FOUND, OCY09
-- ORDER_NOT_PAYABLE (detail: { status, paymentMethod }), OCR29 RATE_LIMITED (detail: { retryAfterSeconds }),
-- OCT00 DEADLINE_EXCEEDED.

-- The ledger is append-only: no API role writes, updates, deletes or truncates a payment; anon and
-- authenticated see nothing.
create table public.payments (
  id uuid primary key default public.uuid_v7(),
  provider text not null check (provider ~ '^[a-z][a-z0-9_]{1,31}$'),
  provider_event_id text not null check (public.is_one_line_text(provider_event_id, 255)),
  provider_payment_id text not null check (public.is_one_line_text(provider_payment_id, 255)),
  order_id uuid references public.orders (id) on delete restrict,
  amount numeric(14, 2) not null check (amount >= 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- what the order expected and where it stood when the payment arrived, for the review of a mismatch
  expected_amount numeric(12, 2),
  expected_currency text,
  order_status public.order_status,
  outcome text not null check (outcome in (
    'paid', 'already_paid', 'already_recorded', 'duplicate_payment', 'order_cancelled', 'method_mismatch',
    'amount_mismatch', 'currency_mismatch', 'not_payable', 'order_not_found'
  )),
  received_at timestamptz not null default now(),
  refund_due boolean not null default false,
  method text check (method ~ '^[a-z][a-z0-9_]{0,39}$'),
  fee_shortfall bigint check (fee_shortfall >= 0),
  constraint payments_one_per_event unique (provider, provider_event_id),
  constraint payments_order_known check ((order_id is null) = (outcome = 'order_not_found')),
  constraint payments_refund_due_outcome check (not refund_due or outcome in (
    'duplicate_payment', 'order_cancelled', 'method_mismatch', 'amount_mismatch', 'currency_mismatch'
  ))
);

create index payments_order_id_idx on public.payments (order_id);
-- an order is marked paid by one payment at most, whatever writes here
create unique index payments_one_paid_per_order on public.payments (order_id) where outcome = 'paid';
-- one refund due per provider payment
create unique index payments_one_refund_per_payment on public.payments (provider, provider_payment_id)
  where refund_due;

create table public.payment_provider_orders (
  -- the order's own time-ordered id: one provider order per order
  order_id uuid primary key references public.orders (id) on delete restrict,
  provider text not null check (provider ~ '^[a-z][a-z0-9_]{1,31}$'),
  provider_order_id text not null check (public.is_one_line_text(provider_order_id, 255)),
  amount numeric(12, 2) not null check (amount >= 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  created_at timestamptz not null default now(),
  -- a webhook names the provider's order: it finds ours through this
  constraint payment_provider_orders_provider_order unique (provider, provider_order_id)
);

-- The sub-method whose rate a gateway payment by p_method costs (Razorpay's names): upi and wallet are their
-- own, every other method the card's.
create or replace function public.gateway_rate_method(p_method text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case when p_method in ('upi', 'wallet') then p_method else 'card' end;
$$;

revoke execute on function public.gateway_rate_method(text) from public, anon, authenticated, service_role;
grant execute on function public.gateway_rate_method(text) to service_role;

-- One confirmation event (p_method: the payment's own method; p_provider_order_id: the gateway's order the
-- payment paid). A payment whose provider order is a kept one is decided for that order, whatever p_order_id
-- says; a payment through no kept provider order (none, or one this service did not open: the store's own
-- server, the Dashboard) is decided for the order p_order_id names only when that order has no kept provider
-- order itself, else for no order (order_not_found, for a person). The order's id comes as the provider
-- carried it (text): anything that is not the id of an order is recorded as order_not_found. The amount and
-- currency are checked as for every payment (a wrong one is refunded). Returns
-- { replayed, outcome, orderId, orderNumber, orderStatus, refundDue, method, feeShortfall, refund, emails };
-- `refund` is the refund this event wrote ({ refundId, amount, currency, status }), else null.
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
  v_kept_order_id uuid;
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

  -- The order start-payment kept this gateway order for decides, whatever the notes say: the buyer's browser
  -- writes the notes. They name the order only for a payment through no kept gateway order, and only an
  -- order with no kept gateway order of its own (whose payments come through that one); else no order.
  if p_provider_order_id is not null then
    select k.order_id into v_kept_order_id
    from public.payment_provider_orders k
    where k.provider = p_provider and k.provider_order_id = p_provider_order_id;
  end if;
  if v_kept_order_id is not null then
    v_order_id := v_kept_order_id;
  elsif exists (select 1 from public.payment_provider_orders k where k.order_id = v_order_id) then
    v_order_id := null;
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

revoke execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz, text, text)
  to service_role;

-- begin_payment counts the caller (its IP; '' when unknown, then uncounted) in its per-IP rate-limit window
-- (start-payment and verify-payment share the bucket `payment-ip:<ip>`, with create-order's per-IP limit and
-- window), then reads what the two functions decide from: the order's payment facts, its store's name and
-- the kept provider order. An order that does not exist is an answer, not an error, so the count stays (a
-- caller probing for order ids is counted like any other). Its answer: { order: { orderId, orderNumber,
-- storeId, storeName, status, paymentMethod, gatewayMethod, finalAmountMinor, currency } | null,
-- providerOrder: { provider, providerOrderId, amountMinor, currency } | null }.
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

revoke execute on function public.begin_payment(text, text, integer, integer, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.begin_payment(text, text, integer, integer, timestamptz) to service_role;

-- keep_provider_order keeps the provider order made for an order, unless one is kept already, and answers
-- the kept one. It holds the order's row, behind its queue, while it checks that the order still awaits a
-- gateway payment, so a cancellation either commits first (and the call answers ORDER_NOT_PAYABLE) or waits
-- for it.
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

revoke execute on function public.keep_provider_order(uuid, text, text, bigint, text, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.keep_provider_order(uuid, text, text, bigint, text, timestamptz)
  to service_role;

alter table public.payments enable row level security;
alter table public.payment_provider_orders enable row level security;

-- Read by the service role; written only by the functions above.
revoke all on public.payments, public.payment_provider_orders from anon, authenticated, service_role;
grant select on public.payments, public.payment_provider_orders to service_role;
