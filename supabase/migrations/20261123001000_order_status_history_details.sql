-- Who moved an order, why, and how it travels: the status history gains the move's actor (seller,
-- payment_gateway or system), its note (a cancellation's reason), and for `shipped` the carrier, tracking
-- number and tracking link. The lifecycle trigger keeps recording every change, for every writer; a mover
-- that knows more (update_order_status, confirm_payment) hands it to the trigger through a transaction-local
-- setting, so there is still one place that writes history and no move goes unrecorded.
-- The trigger's refusal now names the moves that are allowed, so the final guard answers as helpfully as
-- the functions' own check, and the allowed moves are read from order_status_transition_allowed alone.

-- 1. The move's details, checked by the table for any writer: free text is one line (no control, line
--    break or bidi character), tracking details belong to a `shipped` row, and a link is http(s).
alter table public.order_status_history
  add column actor text not null default 'system'
    check (actor in ('seller', 'payment_gateway', 'system')),
  add column note text
    check (length(note) between 1 and 500 and note !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]'),
  add column carrier text
    check (length(carrier) between 1 and 100 and carrier !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]'),
  add column tracking_number text
    check (length(tracking_number) between 1 and 100
      and tracking_number !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]'),
  add column tracking_url text
    check (length(tracking_url) <= 2048 and tracking_url ~ '^https?://[^\s]+$'),
  add constraint order_status_history_tracking_only_when_shipped
    check (to_status = 'shipped' or (carrier is null and tracking_number is null and tracking_url is null));

-- 2. The moves allowed from a status, in the enum's order, read from the one transition table.
create or replace function public.order_status_next_moves(p_from public.order_status)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(s.status order by s.status), '[]'::jsonb)
  from unnest(enum_range(null::public.order_status)) as s(status)
  where public.order_status_transition_allowed(p_from, s.status);
$$;

-- 3. The lifecycle guard, as before, with the allowed moves in its error's detail.
create or replace function public.enforce_order_status_transition()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    if new.status not in ('pending', 'payment_pending') then
      raise exception using
        errcode = 'OCT01',
        message = format('INVALID_STATUS_TRANSITION: an order cannot start as %s', new.status);
    end if;
  elsif new.status is distinct from old.status
    and not public.order_status_transition_allowed(old.status, new.status) then
    raise exception using
      errcode = 'OCT01',
      message = format('INVALID_STATUS_TRANSITION: %s -> %s is not allowed', old.status, new.status),
      detail = jsonb_build_object(
        'from', old.status, 'to', new.status, 'allowed', public.order_status_next_moves(old.status)
      )::text,
      hint = 'see order_status_transition_allowed()';
  end if;
  return new;
end;
$$;

-- 4. The history row of every status an order takes. A mover sets `order_status.move` for its transaction
--    to {orderId, actor, note, carrier, trackingNumber, trackingUrl}; a change of any other order, or one
--    made without it (create_order, plain SQL), is recorded as the system's.
create or replace function public.record_order_status_change()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_move jsonb := nullif(current_setting('order_status.move', true), '')::jsonb;
begin
  if v_move ->> 'orderId' is distinct from new.id::text then
    v_move := '{}'::jsonb;
  end if;
  insert into public.order_status_history (
    order_id, from_status, to_status, actor, note, carrier, tracking_number, tracking_url
  ) values (
    new.id, case when tg_op = 'UPDATE' then old.status end, new.status,
    coalesce(v_move ->> 'actor', 'system'), v_move ->> 'note', v_move ->> 'carrier',
    v_move ->> 'trackingNumber', v_move ->> 'trackingUrl'
  );
  return null;
end;
$$;

revoke execute on function public.order_status_next_moves(public.order_status) from public, anon, authenticated;
grant execute on function public.order_status_next_moves(public.order_status) to service_role;
revoke execute on function public.enforce_order_status_transition() from public, anon, authenticated, service_role;
revoke execute on function public.record_order_status_change() from public, anon, authenticated, service_role;
