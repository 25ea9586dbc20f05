-- The buyer's status e-mails tell who confirmed a payment and whether money is due back, from what the
-- database recorded: move_order_status (replaced) adds to each status e-mail's snapshot
--   movedBy           who made this move (seller, payment_gateway or system);
--   paidBy            who moved the order to `paid` (seller, payment_gateway or system), null if nobody did:
--                     the `paid` e-mail says the gateway confirmed the payment, or that the seller confirmed
--                     receiving it;
--   recordedPayments  { count, amountMinor } of the gateway's payments the ledger holds for the order
--                     (whatever their outcome: money that reached the gateway), each payment counted once;
--                     amountMinor is null when one is in another currency than the order's. The `cancelled`
--                     e-mail says a refund is due only when a payment was recorded here, or the seller had
--                     confirmed receiving one; never for an order nobody paid.
-- Rows written before this migration lack these fields; the templates fall back to the status the order left.
-- move_order_status is declared `security definer` with an empty search_path, as every writer is.

create or replace function public.move_order_status(
  p_order_id uuid,
  p_status public.order_status,
  p_actor text,
  p_note text default null,
  p_carrier text default null,
  p_tracking_number text default null,
  p_tracking_url text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_order record;
  v_payload jsonb;
  v_emails jsonb := '[]'::jsonb;
begin
  select o.id, o.status, o.order_number, o.created_at, o.currency, o.buyer_email, o.payment_method,
    o.gateway_method, o.total_amount, o.checkout_fee, o.final_amount, s.name as store_name,
    s.owner_email
  into v_order
  from public.orders o join public.stores s on s.id = o.store_id
  where o.id = p_order_id
  for update of o;
  if not found then
    raise exception using errcode = 'OCO04', message = 'ORDER_NOT_FOUND: no order with this id',
      detail = jsonb_build_object('orderId', p_order_id)::text;
  end if;

  if v_order.status = p_status then
    return jsonb_build_object(
      'changed', false, 'orderId', v_order.id, 'orderNumber', v_order.order_number, 'status', v_order.status,
      'allowed', public.order_status_next_moves(v_order.status), 'emails', '[]'::jsonb
    );
  end if;
  if not public.order_status_transition_allowed(v_order.status, p_status) then
    raise exception using
      errcode = 'OCT01',
      message = format('INVALID_STATUS_TRANSITION: %s -> %s is not allowed', v_order.status, p_status),
      detail = jsonb_build_object(
        'from', v_order.status, 'to', p_status, 'allowed', public.order_status_next_moves(v_order.status)
      )::text;
  end if;

  -- the lifecycle trigger writes the history row; these are its details (see record_order_status_change)
  perform set_config('order_status.move', jsonb_build_object(
    'orderId', v_order.id, 'actor', p_actor, 'note', p_note, 'carrier', p_carrier,
    'trackingNumber', p_tracking_number, 'trackingUrl', p_tracking_url
  )::text, true);
  update public.orders set status = p_status where id = v_order.id;
  perform set_config('order_status.move', '', true);

  if p_status in ('paid', 'shipped', 'delivered', 'cancelled') then
    v_payload := jsonb_build_object(
      'orderId', v_order.id, 'orderNumber', v_order.order_number, 'createdAt', v_order.created_at,
      'currency', v_order.currency, 'status', p_status, 'previousStatus', v_order.status,
      'changedAt', now(),
      'store', jsonb_build_object('name', v_order.store_name, 'ownerEmail', v_order.owner_email),
      'paymentMethod', v_order.payment_method, 'gatewayMethod', v_order.gateway_method,
      'items', (
        select coalesce(jsonb_agg(jsonb_build_object(
          'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
          'unitPriceMinor', (i.unit_price * 100)::bigint, 'lineTotalMinor', (i.line_total * 100)::bigint
        ) order by i.position), '[]'::jsonb)
        from public.order_items i where i.order_id = v_order.id
      ),
      'totalMinor', (v_order.total_amount * 100)::bigint, 'feeMinor', (v_order.checkout_fee * 100)::bigint,
      'finalMinor', (v_order.final_amount * 100)::bigint,
      'note', p_note, 'carrier', p_carrier, 'trackingNumber', p_tracking_number, 'trackingUrl', p_tracking_url,
      -- who made this move: a cancellation by the system (an unpaid order's time ran out) gives our reason
      'movedBy', p_actor,
      -- who moved the order to paid (this move's mover for `paid`), null when it never was paid
      'paidBy', (
        select h.actor from public.order_status_history h
        where h.order_id = v_order.id and h.to_status = 'paid'
        order by h.id desc
        limit 1
      ),
      -- the gateway's payments the ledger holds for the order, each payment once (its events share its
      -- amount); the sum only when every one is in the order's currency
      'recordedPayments', (
        select jsonb_build_object(
          'count', count(*),
          'amountMinor', case when bool_and(p.currency = v_order.currency) then sum((p.amount * 100)::bigint) end
        )
        from (
          select distinct on (l.provider, l.provider_payment_id) l.amount, l.currency
          from public.payments l
          where l.order_id = v_order.id
          order by l.provider, l.provider_payment_id, l.received_at
        ) p
      )
    );
    -- claimed by the caller at once (status sending, a claim token), as create_order claims its e-mails
    with inserted as (
      insert into public.email_outbox (order_id, kind, to_email, reply_to, payload, status, claimed_at, claim_token)
      values (
        v_order.id, 'status_' || p_status::text, v_order.buyer_email, v_order.owner_email, v_payload, 'sending',
        now(), gen_random_uuid()
      )
      on conflict (order_id, kind) do nothing
      returning *
    )
    select coalesce(jsonb_agg(public.email_outbox_message(i)), '[]'::jsonb) into v_emails from inserted i;
  end if;

  return jsonb_build_object(
    'changed', true, 'orderId', v_order.id, 'orderNumber', v_order.order_number, 'status', p_status,
    'allowed', public.order_status_next_moves(p_status), 'emails', v_emails
  );
end;
$$;
