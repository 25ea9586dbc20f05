-- The tracking answer gains the parcel: once an order is shipped, the carrier, tracking number and tracking
-- link the seller gave with the move to `shipped` (order_status_history), so a guest buyer's tracking page
-- can point at the carrier as the shipped e-mail does. Still never a note or who moved the order: notes
-- are the seller's records. `shipment` is null until the order has shipped.

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
    'currency', o.currency,
    'paymentMethod', o.payment_method,
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

revoke execute on function public.order_tracking(uuid) from public, anon, authenticated;
grant execute on function public.order_tracking(uuid) to service_role;
