-- The payment e-mails through the outbox (contract, "Both sides hear of a payment" and "Money goes back by
-- itself"), and the method actually used in every e-mail after the payment:
-- 1. Two outbox kinds. `seller_paid`: the seller's "Payment received for ORD-…: ready to ship" (amount, the
--    method used, any fee shortfall, the items and where to ship them), Reply-To the buyer, written when the
--    gateway (payment-webhook or verify-payment, through confirm_payment) marks an order paid, never when the
--    seller marked it paid; claimed for the caller, who sends it after answering, as the buyer's `paid`
--    e-mail is. `refund`: the buyer's refund e-mail (amount, the method paid by, 5-7 working days, the
--    gateway's reference), Reply-To the store, written once per refund when the gateway first holds it
--    (record_refund_result, or a refund event that came first), pending for the drain, whose run issues
--    refunds before it sends. Both carry their payload (a snapshot: what the e-mail says was true when it
--    was written); a refund e-mail names its refund (email_outbox.refund_id, one e-mail per refund).
-- 2. email_superseded (replaced): the seller's `seller_paid` of an order since cancelled is not sent either:
--    it would ask the seller to ship a cancelled order.
-- 3. order_email_data (replaced from 20261126150500_superseded_emails.sql): the buyer's confirmation and the
--    seller's alert, rendered from the order's current rows, also name the method the gateway payment that
--    paid the order was made by (`paidWith`, only when one did), never only the method chosen at checkout.
--
-- 4. gateway_rate_method (20261126150000_refunds.sql) kept from the API roles: PostgreSQL grants a new
--    function's EXECUTE to PUBLIC, and that migration did not revoke it.
-- confirm_payment, record_refund_result and record_refund_event write these e-mails from
-- 20261126290600_every_writer_deadline.sql on, where each is replaced whole.
--
-- SQLSTATEs: none of its own.

-- 1. The kinds, and the refund an e-mail is about (only a `refund` e-mail names one). One row per order, kind
--    and refund (null counted as one value), so one order may hear of two refunds, and of each once.
alter table public.email_outbox drop constraint email_outbox_kind_check;
alter table public.email_outbox add constraint email_outbox_kind_check check (kind in (
  'buyer', 'seller', 'status_paid', 'status_shipped', 'status_delivered', 'status_cancelled', 'seller_paid',
  'refund'
));
-- (email_outbox.refund_id and the one-per-kind-and-refund constraint are 20261126150200_cancellation_refunds.sql's)
alter table public.email_outbox add constraint email_outbox_refund_names_its_refund
  check ((kind = 'refund') = (refund_id is not null));

-- 2. What must no longer be sent once the order has a status: the seller's "ready to ship" of a cancelled
--    order joins the new-order alert and the buyer's `paid` e-mail.
create or replace function public.email_superseded(p_kind text, p_order_status public.order_status)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select p_order_status = 'cancelled' and p_kind in ('seller', 'status_paid', 'seller_paid');
$$;

-- 3. The order's e-mails from its rows as they are now, with the method the gateway payment that paid it
--    was made by (`paidWith`, only when one did and the gateway said how).
create or replace function public.order_email_data(p_order_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', o.currency,
    'status', o.status,
    'store', jsonb_build_object('name', s.name, 'ownerEmail', s.owner_email),
    'buyer', jsonb_build_object('email', o.buyer_email, 'name', o.buyer_name, 'phone', o.buyer_phone),
    'shippingAddress', o.shipping_address,
    'paymentMethod', o.payment_method, 'gatewayMethod', o.gateway_method,
    'paymentProofUrl', o.payment_proof_url,
    'items', (
      select coalesce(jsonb_agg(jsonb_build_object(
        'position', i.position, 'productId', i.product_id, 'variantId', i.variant_id,
        'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
        'unitPriceMinor', (i.unit_price * 100)::bigint, 'lineTotalMinor', (i.line_total * 100)::bigint
      ) order by i.position), '[]'::jsonb)
      from public.order_items i where i.order_id = o.id
    ),
    'totalMinor', (o.total_amount * 100)::bigint, 'feeMinor', (o.checkout_fee * 100)::bigint,
    'finalMinor', (o.final_amount * 100)::bigint
  ) || coalesce((
    select jsonb_build_object('paidBy', h.actor) from public.order_status_history h
    where h.order_id = o.id and h.to_status = 'paid'
    order by h.id desc limit 1
  ), '{}'::jsonb) || coalesce((
    select jsonb_build_object('paidWith', p.method) from public.payments p
    where p.order_id = o.id and p.outcome = 'paid' and p.method is not null
  ), '{}'::jsonb)
  from public.orders o
  join public.stores s on s.id = o.store_id
  where o.id = p_order_id;
$$;

-- 4. The seller's "payment received" e-mail of the payment p_payment_id (SellerPaidEmailData in the
--    functions' _shared/email/payment_email_data.ts): the order, its buyer and address, its items, and the
--    payment as the ledger recorded it.
create or replace function public.seller_paid_email_data(p_payment_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', o.currency,
    'store', jsonb_build_object('name', s.name, 'ownerEmail', s.owner_email),
    'buyer', jsonb_build_object('email', o.buyer_email, 'name', o.buyer_name, 'phone', o.buyer_phone),
    'shippingAddress', o.shipping_address,
    'gatewayMethod', o.gateway_method,
    'payment', jsonb_build_object(
      'method', p.method, 'amountMinor', (p.amount * 100)::bigint,
      'feeShortfallMinor', coalesce(p.fee_shortfall, 0), 'paidAt', p.received_at
    ),
    'items', (
      select coalesce(jsonb_agg(jsonb_build_object(
        'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
        'unitPriceMinor', (i.unit_price * 100)::bigint, 'lineTotalMinor', (i.line_total * 100)::bigint
      ) order by i.position), '[]'::jsonb)
      from public.order_items i where i.order_id = o.id
    ),
    'totalMinor', (o.total_amount * 100)::bigint, 'feeMinor', (o.checkout_fee * 100)::bigint,
    'finalMinor', (o.final_amount * 100)::bigint
  )
  from public.payments p
  join public.orders o on o.id = p.order_id
  join public.stores s on s.id = o.store_id
  where p.id = p_payment_id;
$$;

-- 5. The buyer's refund e-mail of a refund the gateway now holds (RefundEmailData); once per refund, whoever
--    records it first (the drain's result, or the gateway's event). The drain's record claims it (p_claim),
--    and its run sends it before its budget ends, as the run sends the cancelled e-mails of the orders it
--    cancels; an event's is pending for the next run. None for a `manual` refund: the store returns that
--    money itself. Returns the claimed messages ([] unless p_claim). Security definer (it writes the
--    outbox), and no API role's: record_refund_result and record_refund_event call it.
create or replace function public.queue_refund_email(p_refund_id uuid, p_claim boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_emails jsonb;
begin
  with inserted as (
    insert into public.email_outbox (
      order_id, kind, refund_id, to_email, reply_to, payload, status, claimed_at, claim_token
    )
    select o.id, 'refund', r.id, o.buyer_email, s.owner_email, jsonb_build_object(
      'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', r.currency,
      'store', jsonb_build_object('name', s.name, 'ownerEmail', s.owner_email),
      -- a payment that paid its order goes back because the order was cancelled since
      'reason', case when p.outcome = 'paid' then 'order_cancelled' else p.outcome end,
      'refund', jsonb_build_object(
        'refundId', r.id, 'amountMinor', (r.amount * 100)::bigint, 'method', p.method, 'issuedAt', now(),
        'providerRefundId', r.provider_refund_id
      )
    ),
    case when p_claim then 'sending' else 'pending' end,
    case when p_claim then now() end,
    case when p_claim then gen_random_uuid() end
    from public.refunds r
    join public.payments p on p.id = r.payment_id
    join public.orders o on o.id = r.order_id
    join public.stores s on s.id = o.store_id
    where r.id = p_refund_id and r.status <> 'manual' and r.provider_refund_id is not null
    on conflict (order_id, kind, refund_id) do nothing
    returning *
  )
  select coalesce(jsonb_agg(public.email_outbox_message(i)) filter (where p_claim), '[]'::jsonb)
  into v_emails
  from inserted i;
  return v_emails;
end;
$$;

revoke execute on function public.email_superseded(text, public.order_status) from public, anon, authenticated;
grant execute on function public.email_superseded(text, public.order_status) to service_role;
revoke execute on function public.order_email_data(uuid) from public, anon, authenticated;
grant execute on function public.order_email_data(uuid) to service_role;
revoke execute on function public.seller_paid_email_data(uuid) from public, anon, authenticated;
grant execute on function public.seller_paid_email_data(uuid) to service_role;
revoke execute on function public.queue_refund_email(uuid, boolean) from public, anon, authenticated, service_role;

revoke execute on function public.gateway_rate_method(text) from public, anon, authenticated;
grant execute on function public.gateway_rate_method(text) to service_role;
