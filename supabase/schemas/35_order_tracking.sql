-- What a guest buyer sees on the order page the e-mails link to (the track-order function, which checks the
-- link's token before it asks), in one round trip: the order's number, status, history (each status and
-- when it was taken), items and amounts, the gateway method it was priced with (so the page can name the fee
-- it shows), its store's time zone (so the page shows every date in the store's calendar, as the order
-- number counts its year), and once it has shipped the carrier, tracking number and tracking link the
-- seller gave with the move to `shipped` (`shipment`, null until then). Never the buyer's e-mail, phone or
-- address, the payment proof, the client IP, a note or who moved the order: a tracking link can be
-- forwarded, and whoever holds it sees only what the order is and where it stands.
-- Executable by service_role only; null for an unknown order.
create or replace function public.order_tracking(p_order_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'orderId', o.id,
    'orderNumber', o.order_number,
    'status', o.status,
    'createdAt', o.created_at,
    'storeName', s.name,
    'timeZone', s.time_zone,
    'currency', o.currency,
    'paymentMethod', o.payment_method,
    'gatewayMethod', o.gateway_method,
    'items', (
      select coalesce(jsonb_agg(jsonb_build_object(
        'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
        'unitPrice', i.unit_price, 'lineTotal', i.line_total
      ) order by i.position), '[]'::jsonb)
      from public.order_items i where i.order_id = o.id
    ),
    'totalAmount', o.total_amount,
    'checkoutFee', o.checkout_fee,
    'finalAmount', o.final_amount,
    'history', (
      select coalesce(jsonb_agg(jsonb_build_object('status', h.to_status, 'at', h.changed_at) order by h.id), '[]'::jsonb)
      from public.order_status_history h where h.order_id = o.id
    ),
    'shipment', (
      select jsonb_build_object(
        'carrier', h.carrier, 'trackingNumber', h.tracking_number, 'trackingUrl', h.tracking_url
      )
      from public.order_status_history h
      where h.order_id = o.id and h.to_status = 'shipped'
      order by h.id desc
      limit 1
    )
  )
  from public.orders o
  join public.stores s on s.id = o.store_id
  where o.id = p_order_id;
$$;

revoke execute on function public.order_tracking(uuid) from public, anon, authenticated, service_role;
grant execute on function public.order_tracking(uuid) to service_role;
