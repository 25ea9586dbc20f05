-- What a guest buyer sees on the tracking page the e-mail links to (the track-order function, which checks
-- the link's token before it asks): the order's number, status, history (each status and when it was
-- taken), items and amounts, in one round trip. Never the buyer's e-mail, phone or address, nor the
-- payment proof, the client IP or who changed a status: a tracking link can be forwarded, and whoever
-- holds it sees only what the order is and where it stands.
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
    )
  )
  from public.orders o
  join public.stores s on s.id = o.store_id
  where o.id = p_order_id;
$$;

revoke execute on function public.order_tracking(uuid) from public, anon, authenticated;
grant execute on function public.order_tracking(uuid) to service_role;
