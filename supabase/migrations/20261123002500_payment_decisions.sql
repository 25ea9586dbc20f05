-- What a gateway's payment means for an order, decided again (confirm_payment replaced):
-- - The gateway pays only orders whose payment method is `gateway`. A payment of a `upi_direct` order (the
--   buyer was to transfer the money directly, the seller confirms it) is recorded as `method_mismatch`:
--   the order is not marked paid, and the money is due back to the buyer, as for a cancelled order.
-- - A refund is due once per provider payment, not once per event: Razorpay reports one payment twice
--   (payment.captured and order.paid, two event ids). The first event of a payment decides; every later
--   event of it is recorded as `already_paid` (the first paid the order) or `already_recorded`, and flags
--   nothing. `payments.refund_due` marks the one row per payment whose money is due back, and a unique
--   index keeps it one, whatever writes the ledger.
-- - A seller may mark a gateway order paid before the gateway reports it (the buyer showed a receipt).
--   The gateway's payment that then arrives is the order's payment (outcome `paid`, the order left as it
--   is, no second e-mail), not a duplicate to refund, unless a payment was already recorded for the order.
--
-- confirm_payment is declared `security definer` (it runs as the owner of the tables it writes, so the
-- service role needs no more than EXECUTE on it) with an empty search_path, as every writer is.
--
-- Outcomes (payments.outcome), the earlier ones unchanged:
--   paid               amount and currency match, and the order was payment_pending: it is now paid (actor
--                      payment_gateway) and the buyer's `paid` e-mail is queued; or the seller had marked it
--                      paid and no payment was recorded for it before: this is its payment, nothing moves
--   already_paid       the order was already paid by this same payment (another event of it): nothing to do
--   already_recorded   another event of a payment already decided otherwise: nothing new to do
--   duplicate_payment  the order was already paid (by another payment, or by the seller after another
--                      payment was recorded for it): refund due
--   order_cancelled    the order is cancelled: refund due
--   method_mismatch    the order is not to be paid through the gateway (upi_direct): refund due
--   amount_mismatch    the amount differs from the order's final amount: not paid, for the seller to review
--   currency_mismatch  the currency differs from the order's: not paid, for the seller to review
--   not_payable        the order is in a status that takes no payment (pending): not paid, for review
--   order_not_found    no order with this id (or none given): recorded for review
--
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCT00 DEADLINE_EXCEEDED.

-- 1. The new outcomes, and the refund flag: on the first row of a payment whose money is due back. Rows
--    recorded before it are flagged the same way (a second event of one payment flagged nothing).
alter table public.payments drop constraint payments_outcome_check;
alter table public.payments add constraint payments_outcome_check check (outcome in (
  'paid', 'already_paid', 'already_recorded', 'duplicate_payment', 'order_cancelled', 'method_mismatch',
  'amount_mismatch', 'currency_mismatch', 'not_payable', 'order_not_found'
));
alter table public.payments add column refund_due boolean not null default false;
update public.payments p set refund_due = true
where p.outcome in ('duplicate_payment', 'order_cancelled')
  and not exists (
    select 1 from public.payments e
    where e.provider = p.provider and e.provider_payment_id = p.provider_payment_id
      and e.outcome in ('duplicate_payment', 'order_cancelled')
      and (e.received_at, e.id) < (p.received_at, p.id)
  );
alter table public.payments add constraint payments_refund_due_outcome
  check (not refund_due or outcome in ('duplicate_payment', 'order_cancelled', 'method_mismatch'));
create unique index payments_one_refund_per_payment on public.payments (provider, provider_payment_id)
  where refund_due;

-- 2. One confirmation event, as before, but decided once per payment, and with the payment method
--    checked before anything else about the order. Returns { replayed, outcome, orderId, orderNumber, orderStatus, refundDue, emails }.
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
  if p_deadline is not null then
    if clock_timestamp() >= p_deadline then
      raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller''s deadline passed before this payment started';
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
  perform pg_advisory_xact_lock(hashtextextended('payment/' || p_provider || '/' || p_event_id, 0));
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
  perform pg_advisory_xact_lock(
    hashtextextended('payment-id/' || p_provider || '/' || p_provider_payment_id, 0)
  );

  -- 3. The order, locked: a seller's move or another payment of it waits, or is waited for.
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
