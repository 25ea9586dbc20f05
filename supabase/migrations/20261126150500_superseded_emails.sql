-- An e-mail never contradicts the order (contract, "Under concurrency, at scale, on a slow day"). Drained
-- late, a seller was told "New order ... Do not ship before the gateway has reported the payment" for an order
-- already paid and cancelled, and a buyer "Awaiting payment" for an order they had paid. So:
-- 1. A new outbox status, `superseded`: an e-mail that would ask someone to act on a state the order has left
--    is not sent. It is kept (with the order's other rows, `deno task orders` shows it), never claimed again,
--    and counted in the drain's answer. The rule is one function, email_superseded, which the drain's claim
--    applies to every row it could send: today the seller's new-order alert and the buyer's `paid` e-mail of
--    an order since cancelled. (A later kind that asks someone to act, such as the seller's "payment
--    received", joins the rule by a new definition of this function.)
-- 2. The buyer's and seller's order e-mails are rendered from the order's current status (they were rendered
--    from the status the order was created with), and say who confirmed a payment: the buyer's confirmation
--    always goes, and says what is true when it is sent.

-- 1. The status, and the rule.
alter table public.email_outbox drop constraint email_outbox_status_check;
alter table public.email_outbox add constraint email_outbox_status_check
  check (status in ('pending', 'sending', 'sent', 'failed', 'dead', 'superseded'));

-- Whether an e-mail of kind p_kind must no longer be sent once its order has status p_order_status.
create or replace function public.email_superseded(p_kind text, p_order_status public.order_status)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select p_order_status = 'cancelled' and p_kind in ('seller', 'status_paid');
$$;

-- 2. The order's e-mails from its rows as they are now: its current status, and who moved it to `paid`
--    (`paidBy`, only when somebody did: an unpaid order's content stays what create_order answered),
--    beside what order_email_data read before.
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
  ), '{}'::jsonb)
  from public.orders o
  join public.stores s on s.id = o.store_id
  where o.id = p_order_id;
$$;

revoke execute on function public.email_superseded(text, public.order_status) from public, anon, authenticated;
grant execute on function public.email_superseded(text, public.order_status) to service_role;
revoke execute on function public.order_email_data(uuid) from public, anon, authenticated;
grant execute on function public.order_email_data(uuid) to service_role;
