-- Moving an order through its lifecycle, with the buyer's status e-mail in the same transaction.
-- move_order_status is the one implementation of a move: it locks the order row (two racing moves of one
-- order serialise on it), answers a move to the status the order already has as a no-op (no history row,
-- no e-mail), refuses a move the transition table does not allow with the allowed moves, and otherwise
-- updates the status (the lifecycle trigger stays the final guard and writes the history row with the
-- mover's details) and writes the buyer's e-mail for paid, shipped, delivered and cancelled to the outbox,
-- claimed for its caller as create_order claims an order's e-mails, so the caller sends it after answering
-- and the drain sends it if the caller dies first. update_order_status (the seller's move, this file) and
-- confirm_payment (the payment gateway's, its own migration) both call it.
--
-- SQLSTATEs raised here, mapped by code by the functions:
--   OCO04 ORDER_NOT_FOUND     (detail: { orderId } or { storeId, orderNumber })
--   OCT01 INVALID_TRANSITION  (detail: { from, to, allowed }), as the lifecycle trigger raises it
--   OCN00 VALIDATION_FAILED   (detail: [{ path, message }]: what a direct caller got wrong)
--   OCT00 DEADLINE_EXCEEDED   (the caller's deadline passed; nothing is stored)

-- 1. The outbox takes the buyer's status e-mails: one per order and status, as an order takes each status
--    at most once (the lifecycle has no cycles), so the existing unique (order_id, kind) is the guard.
alter table public.email_outbox drop constraint email_outbox_kind_check;
alter table public.email_outbox add constraint email_outbox_kind_check check (kind in (
  'buyer', 'seller', 'status_paid', 'status_shipped', 'status_delivered', 'status_cancelled'
));

-- 2. The free-text rule a direct caller must keep too: present, at most p_max characters, one line with no
--    control, line-break or bidi character (the functions' text rule also refuses invisible-only text).
create or replace function public.is_one_line_text(p_text text, p_max integer)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(
    btrim(p_text) <> '' and length(p_text) <= p_max
      and p_text !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]',
    false
  );
$$;

-- 3. One move of one order, by `p_actor`, in the caller's transaction. Returns
--    { changed, orderId, orderNumber, status, allowed, emails: [<claimed outbox messages>] }.
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
      'note', p_note, 'carrier', p_carrier, 'trackingNumber', p_tracking_number, 'trackingUrl', p_tracking_url
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

-- 4. The seller's move (the update-order-status function), one call in one transaction: the order by id,
--    or by store and number; the new status; a note (required to cancel: the reason); and for `shipped`
--    the carrier, tracking number and tracking link. What the function validated is checked again here for
--    any other caller. The deadline works as create_order's: a call that queued past it gives up at once,
--    a lock wait ends at it, and the call rolls back rather than commit after it.
create or replace function public.update_order_status(
  p_status text,
  p_order_id uuid default null,
  p_store_id uuid default null,
  p_order_number text default null,
  p_note text default null,
  p_carrier text default null,
  p_tracking_number text default null,
  p_tracking_url text default null,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_status public.order_status;
  v_order_id uuid := p_order_id;
  v_result jsonb;
begin
  if p_deadline is not null then
    if clock_timestamp() >= p_deadline then
      raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller''s deadline passed before this move started';
    end if;
    perform set_config(
      'lock_timeout',
      greatest(1, ceil(extract(epoch from p_deadline - clock_timestamp()) * 1000))::bigint::text,
      true
    );
  end if;

  if p_status is null or not (p_status = any (enum_range(null::public.order_status)::text[])) then
    v_issues := v_issues || jsonb_build_object('path', 'status', 'message', 'status must be an order status');
  else
    v_status := p_status::public.order_status;
  end if;
  if (p_order_id is null) = (p_store_id is null or p_order_number is null)
    or (p_order_id is not null and (p_store_id is not null or p_order_number is not null)) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'orderId', 'message', 'give orderId, or storeId and orderNumber, not both'
    );
  end if;
  if p_note is not null and not public.is_one_line_text(p_note, 500) then
    v_issues := v_issues || jsonb_build_object('path', 'note', 'message', 'note must be one line of 1 to 500 characters');
  end if;
  if v_status = 'cancelled' and p_note is null then
    v_issues := v_issues || jsonb_build_object('path', 'note', 'message', 'a cancellation needs its reason in note');
  end if;
  if v_status is distinct from 'shipped' and coalesce(p_carrier, p_tracking_number, p_tracking_url) is not null then
    v_issues := v_issues || jsonb_build_object(
      'path', 'status', 'message', 'carrier, trackingNumber and trackingUrl belong to a move to shipped'
    );
  end if;
  if p_carrier is not null and not public.is_one_line_text(p_carrier, 100) then
    v_issues := v_issues || jsonb_build_object('path', 'carrier', 'message', 'carrier must be one line of 1 to 100 characters');
  end if;
  if p_tracking_number is not null and not public.is_one_line_text(p_tracking_number, 100) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'trackingNumber', 'message', 'trackingNumber must be one line of 1 to 100 characters'
    );
  end if;
  if p_tracking_url is not null and not (p_tracking_url ~ '^https?://[^\s]+$' and length(p_tracking_url) <= 2048) then
    v_issues := v_issues || jsonb_build_object('path', 'trackingUrl', 'message', 'trackingUrl must be an http(s) URL');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the move is invalid', detail = v_issues::text;
  end if;

  if v_order_id is null then
    select o.id into v_order_id from public.orders o
    where o.store_id = p_store_id and o.order_number = p_order_number;
    if not found then
      raise exception using errcode = 'OCO04', message = 'ORDER_NOT_FOUND: no order with this number in this store',
        detail = jsonb_build_object('storeId', p_store_id, 'orderNumber', p_order_number)::text;
    end if;
  end if;

  v_result := public.move_order_status(
    v_order_id, v_status, 'seller', p_note, p_carrier, p_tracking_number, p_tracking_url
  );

  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this move could commit';
  end if;
  return v_result;
end;
$$;

revoke execute on function public.is_one_line_text(text, integer) from public, anon, authenticated;
grant execute on function public.is_one_line_text(text, integer) to service_role;
revoke execute on function public.move_order_status(uuid, public.order_status, text, text, text, text, text)
  from public, anon, authenticated;
grant execute on function public.move_order_status(uuid, public.order_status, text, text, text, text, text)
  to service_role;
revoke execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  to service_role;
