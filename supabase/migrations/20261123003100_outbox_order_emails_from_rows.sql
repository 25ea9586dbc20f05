-- An order's buyer and seller e-mails are rendered from the order's own rows instead of a snapshot in each
-- outbox row. create_order wrote the same snapshot (the order, its items, the store's name) into both outbox
-- rows, beside the same facts in orders and order_items: three copies of every order, and the e-mail results
-- rewrote both snapshots again. Now an order's outbox rows carry no payload (null); create_order still
-- hands its caller the e-mails with their content (built in memory, no write), and a drain that claims such
-- a row gets the content from order_email_data, read from the order when it is claimed.
-- What is read then: the order's number, amounts, currency, payment method, items (never changed after
-- creation), the status it was created with (its first history row, as order_response), the buyer's
-- contact details and address as the order holds them now (a seller's correction shows), and the store's
-- current name and owner address (its name as the status e-mails show it).
-- Rows written before this migration keep their snapshot and are sent from it, as before. Status e-mails
-- (move_order_status) keep theirs: one row per move, written once, with the move's own details.

alter table public.email_outbox alter column payload drop not null;
alter table public.email_outbox add constraint email_outbox_status_emails_have_payload
  check (payload is not null or kind in ('buyer', 'seller'));

-- The buyer and seller e-mails' content of an order, in the shape create_order returns it
-- (OrderEmailData in the functions' _shared/email/order_email.ts); null for an unknown order.
create or replace function public.order_email_data(p_order_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', o.currency,
    'status', (
      select h.to_status from public.order_status_history h where h.order_id = o.id order by h.id limit 1
    ),
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
  )
  from public.orders o
  join public.stores s on s.id = o.store_id
  where o.id = p_order_id;
$$;

-- The e-mail as a sender needs it: a row's own snapshot (older rows and status e-mails) with the order's
-- number, else the order's content read now.
create or replace function public.email_outbox_message(p_row public.email_outbox)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_row.id,
    'orderId', p_row.order_id,
    'kind', p_row.kind,
    'to', p_row.to_email,
    'replyTo', p_row.reply_to,
    'attempts', p_row.attempts,
    'claimToken', p_row.claim_token,
    'payload', case
      when p_row.payload is null then public.order_email_data(p_row.order_id)
      else p_row.payload || jsonb_build_object('orderNumber', o.order_number)
    end
  )
  from public.orders o
  where o.id = p_row.order_id;
$$;

revoke execute on function public.order_email_data(uuid) from public, anon, authenticated;
grant execute on function public.order_email_data(uuid) to service_role;
revoke execute on function public.email_outbox_message(public.email_outbox) from public, anon, authenticated;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;
