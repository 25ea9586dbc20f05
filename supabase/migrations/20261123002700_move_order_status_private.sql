-- move_order_status, the one implementation of a move, is no API's: it takes any actor and skips the
-- validation of the functions that call it, so a caller holding it could mark an order paid "by the payment
-- gateway" with no payment. Only update_order_status (the seller's move, actor seller) and confirm_payment
-- (the gateway's, actor payment_gateway, after a payment was recorded) call it; both are `security
-- definer` (they run as the owner of the tables, who may run move_order_status), so no API role, not even
-- service_role, keeps EXECUTE on it.
-- update_order_status is replaced unchanged but for `security definer` (CREATE OR REPLACE would otherwise
-- leave it as its last definition said); confirm_payment and move_order_status were made so by the two
-- migrations before this one.

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
security definer
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

revoke execute on function public.move_order_status(uuid, public.order_status, text, text, text, text, text)
  from public, anon, authenticated, service_role;
revoke execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  to service_role;
