-- A cancelled order's money goes back, whoever cancels it (move_order_status, replaced whole from
-- 20261123002600_status_email_payment_facts.sql). Cancelling an order that a gateway payment paid writes that
-- payment's `pending` refund in the move's transaction; cancelling a upi_direct order the seller had
-- confirmed paid writes a `manual` refund of its final amount (the store returns that money itself: the
-- gateway never saw it). A gateway order the seller marked paid with no gateway payment recorded gets no row:
-- its payment, if the gateway reports one later, is refunded then (order_cancelled), and a `manual` row now
-- would return the money twice. The move's answer carries `refund` ({ refundId, amount, currency, status })
-- when it wrote one, and update_order_status hands that answer back to the seller.
-- Both racing orders of a cancellation and a payment serialise on the order's queue (rank 2), so whichever
-- commits first, the payment's money is due back exactly once: order_cancelled when the cancellation came
-- first, this move's refund when the payment did.
-- Status e-mails gain two facts, recorded with the move:
--   paidWith  the method the gateway payment that paid the order was made by (null: none did, or unknown);
--             the `paid` e-mail names it, never the method chosen at checkout
--   refunds   the order's refunds at the move: [{ amountMinor, currency, status }]; the `cancelled` e-mail says
--             the money is being refunded (through the gateway) or that the store will return it (`manual`)
-- The outbox holds a refund's e-mail per refund: email_outbox.refund_id, and one row per order, kind and
-- refund (null for every other kind, counted as one value), so one order may hear of two refunds.

alter table public.email_outbox add column refund_id uuid references public.refunds (id) on delete restrict;
alter table public.email_outbox drop constraint email_outbox_one_per_kind;
alter table public.email_outbox add constraint email_outbox_one_per_kind
  unique nulls not distinct (order_id, kind, refund_id);

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
  v_refund jsonb;
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

  if p_status = 'cancelled' then
    -- the gateway payment that paid the order (one at most): its money goes back, through the gateway
    with inserted as (
      insert into public.refunds (payment_id, order_id, amount, currency)
      select p.id, p.order_id, p.amount, p.currency
      from public.payments p
      where p.order_id = v_order.id and p.outcome = 'paid' and p.amount > 0
      on conflict (payment_id) do nothing
      returning *
    )
    select public.refund_answer(i) into v_refund from inserted i;
    -- a UPI transfer the seller confirmed: the store returns it itself
    if v_refund is null and v_order.payment_method = 'upi_direct' and v_order.status in ('paid', 'processing')
      and v_order.final_amount > 0 then
      with inserted as (
        insert into public.refunds (order_id, amount, currency, status)
        values (v_order.id, v_order.final_amount, v_order.currency, 'manual')
        on conflict (order_id) where payment_id is null do nothing
        returning *
      )
      select public.refund_answer(i) into v_refund from inserted i;
    end if;
  end if;

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
      -- the method of the gateway payment that paid the order, as the gateway reported it
      'paidWith', (
        select p.method from public.payments p where p.order_id = v_order.id and p.outcome = 'paid' limit 1
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
      ),
      -- the money going back, this move's refund included
      'refunds', (
        select coalesce(jsonb_agg(jsonb_build_object(
          'amountMinor', (r.amount * 100)::bigint, 'currency', r.currency, 'status', r.status
        ) order by r.created_at, r.id), '[]'::jsonb)
        from public.refunds r where r.order_id = v_order.id
      )
    );
    -- claimed by the caller at once (status sending, a claim token), as create_order claims its e-mails
    with inserted as (
      insert into public.email_outbox (order_id, kind, to_email, reply_to, payload, status, claimed_at, claim_token)
      values (
        v_order.id, 'status_' || p_status::text, v_order.buyer_email, v_order.owner_email, v_payload, 'sending',
        now(), gen_random_uuid()
      )
      on conflict (order_id, kind, refund_id) do nothing
      returning *
    )
    select coalesce(jsonb_agg(public.email_outbox_message(i)), '[]'::jsonb) into v_emails from inserted i;
  end if;

  return jsonb_build_object(
    'changed', true, 'orderId', v_order.id, 'orderNumber', v_order.order_number, 'status', p_status,
    'allowed', public.order_status_next_moves(p_status), 'emails', v_emails
  ) || case when v_refund is not null then jsonb_build_object('refund', v_refund) else '{}'::jsonb end;
end;
$$;

revoke execute on function public.move_order_status(uuid, public.order_status, text, text, text, text, text)
  from public, anon, authenticated, service_role;
