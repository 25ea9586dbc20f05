-- Opening a payment: one provider order per order. start-payment creates a Razorpay order for a gateway order
-- that awaits its payment and keeps it here, so a later call (the buyer's second tab, the order page's Pay
-- button an hour later) answers the kept one without calling Razorpay again, and verify-payment can check
-- that the payment Checkout reports is for this order's Razorpay order. Two racing first calls may both ask
-- Razorpay for an order, but one row is kept per order and both answer it.
--
-- Two functions, both security definer (they write), executable by service_role only:
-- - begin_payment: counts the caller (its IP; '' when unknown, then uncounted) in its per-IP rate-limit window (start-payment and verify-payment share
--   the bucket `payment-ip:<ip>`, with create-order's per-IP limit and window), then reads what the two
--   functions decide from: the order's payment facts, its store's name and the kept provider order. An order
--   that does not exist is an answer, not an error, so the count stays (a caller probing for order ids is
--   counted like any other).
-- - keep_provider_order: keeps the provider order made for an order, unless one is kept already, and answers
--   the kept one. It holds the order row (for share) while it checks that the order still awaits a gateway
--   payment, so a cancellation either commits first (and the call answers ORDER_NOT_PAYABLE) or waits for it.
-- Locks, in the global order of the writers: the order row, then the order's provider-order row (no other
-- writer takes the latter), and the rate-limit row alone in its own statement.
--
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCO04 ORDER_NOT_FOUND,
--   OCY09 ORDER_NOT_PAYABLE (detail: { status, paymentMethod }), OCR29 RATE_LIMITED (detail:
--   { retryAfterSeconds }), OCT00 DEADLINE_EXCEEDED.

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

alter table public.payment_provider_orders enable row level security;
revoke all on public.payment_provider_orders from anon, authenticated, service_role;
grant select on public.payment_provider_orders to service_role;

-- begin_payment's answer: { order: { orderId, orderNumber, storeId, storeName, status, paymentMethod,
-- gatewayMethod, finalAmountMinor, currency } | null, providerOrder: { provider, providerOrderId, amountMinor,
-- currency } | null }. The deadline rule of every writer: past it, give up before starting; until it, wait on
-- locks no longer.
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
  if p_deadline is not null then
    if clock_timestamp() >= p_deadline then
      raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller''s deadline passed before this payment step started';
    end if;
    perform set_config(
      'lock_timeout',
      greatest(1, ceil(extract(epoch from p_deadline - clock_timestamp()) * 1000))::bigint::text,
      true
    );
  end if;

  -- 1. The caller's count in the current fixed window, as create_order counts orders per IP.
  if v_client_ip is not null and coalesce(p_ip_limit, 0) > 0 and coalesce(p_ip_window_seconds, 0) > 0 then
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

  if p_deadline is not null and clock_timestamp() >= p_deadline then
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
  if p_deadline is not null then
    if clock_timestamp() >= p_deadline then
      raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller''s deadline passed before this payment step started';
    end if;
    perform set_config(
      'lock_timeout',
      greatest(1, ceil(extract(epoch from p_deadline - clock_timestamp()) * 1000))::bigint::text,
      true
    );
  end if;

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

  -- The order, held until commit: a cancellation cannot slip in between the check and the insert.
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

  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this payment step could commit';
  end if;
  return v_kept;
end;
$$;

revoke execute on function public.begin_payment(text, text, integer, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.begin_payment(text, text, integer, integer, timestamptz) to service_role;
revoke execute on function public.keep_provider_order(uuid, text, text, bigint, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.keep_provider_order(uuid, text, text, bigint, text, timestamptz) to service_role;
