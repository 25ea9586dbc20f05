-- The order lifecycle of the specification (part 3), enforced where no client can skip it, and the moves
-- through it. Allowed moves:
--   payment_pending -> paid | cancelled
--   paid            -> processing | cancelled
--   processing      -> shipped | cancelled
--   shipped         -> delivered
--   pending         -> payment_pending | cancelled   (our reading: the spec leaves pending's rules unstated)
-- delivered and cancelled are final. Every status an order takes is appended to order_status_history, with
-- who moved it (actor: seller, payment_gateway or system), why (its note: a cancellation's reason), and for
-- `shipped` how it travels (carrier, tracking number and link). The lifecycle trigger records every change,
-- for every writer; a mover that knows more hands it to the trigger through a transaction-local setting, so
-- there is one place that writes history and no move goes unrecorded. Cancelling an order puts its stock
-- back (the restock trigger), and its money goes back too (move_order_status writes its refund).
--
-- move_order_status is the one implementation of a move: it locks the order (its queue, then its row: two
-- racing moves of one order serialise), answers a move to the status the order already has as a no-op (no
-- history row, no e-mail), refuses a move the transition table does not allow with the allowed moves, and
-- otherwise updates the status and writes the buyer's e-mail for paid, shipped, delivered and cancelled to
-- the outbox, claimed for its caller as create_order claims an order's e-mails, so the caller sends it
-- after answering and the drain sends it if the caller dies first. It is no API's: it takes any actor and
-- skips the validation of the functions that call it, so a caller holding it could mark an order paid "by
-- the payment gateway" with no payment. Only update_order_status (the seller's move, this file) and
-- confirm_payment (the gateway's, 50_payments.sql) call it; both are `security definer`, so no API role,
-- not even service_role, holds EXECUTE on it.
--
-- SQLSTATEs raised here, mapped by code by the functions:
--   OCO04 ORDER_NOT_FOUND     (detail: { orderId } or { storeId, orderNumber })
--   OCT01 INVALID_TRANSITION  (detail: { from, to, allowed })
--   OCN00 VALIDATION_FAILED   (detail: [{ path, message }]: what a direct caller got wrong)
--   OCT00 DEADLINE_EXCEEDED   (the caller's deadline passed; nothing is stored)

create table public.order_status_history (
  id bigint generated always as identity primary key,
  order_id uuid not null references public.orders (id) on delete cascade,
  from_status public.order_status,
  to_status public.order_status not null,
  -- who asked for the change: the request's role (`set role`, as PostgREST sets it), else the session's user
  -- (plain SQL, the owner's own tools). A security definer function changes current_user, not `role`.
  changed_by text not null default coalesce(nullif(current_setting('role', true), 'none'), current_user),
  changed_at timestamptz not null default now(),
  -- The move's details, checked by the table for any writer: free text is one line (no control, line break
  -- or bidi character), tracking details belong to a `shipped` row, and a link is http(s).
  actor text not null default 'system'
    check (actor in ('seller', 'payment_gateway', 'system')),
  note text
    check (length(note) between 1 and 500
      and note !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]'),
  carrier text
    check (length(carrier) between 1 and 100
      and carrier !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]'),
  tracking_number text
    check (length(tracking_number) between 1 and 100
      and tracking_number !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]'),
  tracking_url text
    check (length(tracking_url) <= 2048 and tracking_url ~ '^https?://[^\s]+$'),
  constraint order_status_history_tracking_only_when_shipped
    check (to_status = 'shipped' or (carrier is null and tracking_number is null and tracking_url is null))
);

create index order_status_history_order_id_idx on public.order_status_history (order_id, id);

-- The transition table as data, so the rule is read in one place.
create or replace function public.order_status_transition_allowed(
  p_from public.order_status,
  p_to public.order_status
)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select (p_from, p_to) in (
    ('pending'::public.order_status, 'payment_pending'::public.order_status),
    ('pending', 'cancelled'),
    ('payment_pending', 'paid'),
    ('payment_pending', 'cancelled'),
    ('paid', 'processing'),
    ('paid', 'cancelled'),
    ('processing', 'shipped'),
    ('processing', 'cancelled'),
    ('shipped', 'delivered')
  );
$$;

revoke execute on function public.order_status_transition_allowed(public.order_status, public.order_status)
  from public, anon, authenticated, service_role;
grant execute on function public.order_status_transition_allowed(public.order_status, public.order_status)
  to service_role;

-- The moves allowed from a status, in the enum's order, read from the one transition table.
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

revoke execute on function public.order_status_next_moves(public.order_status)
  from public, anon, authenticated, service_role;
grant execute on function public.order_status_next_moves(public.order_status) to service_role;

-- The lifecycle guard, the final one for every writer, with the allowed moves in its error's detail.
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

revoke execute on function public.enforce_order_status_transition()
  from public, anon, authenticated, service_role;

-- The history row of every status an order takes. A mover sets `order_status.move` for its transaction to
-- {orderId, actor, note, carrier, trackingNumber, trackingUrl}; a change of any other order, or one made
-- without it (create_order, plain SQL), is recorded as the system's.
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

revoke execute on function public.record_order_status_change() from public, anon, authenticated, service_role;

-- The restock of a cancelled order (lock order: rank 4 then 5): its store's queue first, then its stock rows
-- in the fixed order, each wait bounded by the deadline of the writer that cancelled it. It puts back
-- exactly what create_order took, to the row it came from (order_items.stock_source), whatever the
-- catalogue's settings are by then; a trigger on the change to `cancelled`, so every path that cancels an
-- order restocks it, and once (`cancelled` is final).
create or replace function public.restock_cancelled_order()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_taken record;
begin
  if exists (select 1 from public.order_items i where i.order_id = new.id and i.stock_source is not null) then
    perform public.join_queue('store/' || new.store_id::text);
  end if;
  for v_taken in
    select i.product_id, case when i.stock_source = 'variant' then i.variant_id end as variant_id,
      sum(i.quantity)::integer as quantity
    from public.order_items i
    where i.order_id = new.id and i.stock_source is not null
    group by 1, 2
    order by 1, 2 nulls first
  loop
    perform public.bound_lock_wait();
    -- a row whose tracking was turned off since (null) stays untracked: null + n is null
    if v_taken.variant_id is null then
      update public.products p set stock_quantity = p.stock_quantity + v_taken.quantity
      where p.id = v_taken.product_id;
    else
      update public.product_variants v set stock_quantity = v.stock_quantity + v_taken.quantity
      where v.id = v_taken.variant_id;
    end if;
  end loop;
  return null;
end;
$$;

revoke execute on function public.restock_cancelled_order() from public, anon, authenticated, service_role;

create trigger orders_enforce_status_transition
  before insert or update of status on public.orders
  for each row execute function public.enforce_order_status_transition();

create trigger orders_record_status_insert
  after insert on public.orders
  for each row execute function public.record_order_status_change();

create trigger orders_record_status_change
  after update of status on public.orders
  for each row when (new.status is distinct from old.status)
  execute function public.record_order_status_change();

create trigger orders_restock_on_cancel
  after update of status on public.orders
  for each row when (new.status = 'cancelled' and old.status is distinct from 'cancelled')
  execute function public.restock_cancelled_order();

-- One move of one order, by `p_actor`, in the caller's transaction. Returns
-- { changed, orderId, orderNumber, status, allowed, emails: [<claimed outbox messages>], refund? }.
-- The status e-mail's snapshot carries what the database recorded: movedBy (who made this move), paidBy
-- (who moved the order to `paid`, null if nobody did), paidWith (the method the gateway payment that paid
-- it was made by), recordedPayments ({ count, amountMinor } of the gateway's payments the ledger holds for
-- the order) and refunds (the order's refunds at the move). Cancelling an order that a gateway payment paid
-- writes that payment's `pending` refund in the move's transaction; cancelling a upi_direct order the seller
-- had confirmed paid writes a `manual` refund of its final amount (the store returns that money itself). A
-- gateway order the seller marked paid with no gateway payment recorded gets none: its payment, if the
-- gateway reports one later, is refunded then (order_cancelled). A cancellation and a payment serialise on
-- the order's queue, so whichever commits first, the payment's money is due back exactly once.
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

-- The seller's move (the update-order-status function), one call in one transaction: the order by id, or by
-- store and number; the new status; a note (required to cancel: the reason); and for `shipped` the carrier,
-- tracking number and tracking link. What the function validated is checked again here for any other
-- caller. The deadline works as every writer's (07_lock_order.sql).
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
  perform public.start_deadline(p_deadline, 'move');

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

  -- rank 2 of the lock order: the order's queue, then (in move_order_status) its row, one wait each
  perform public.join_queue('order/' || v_order_id::text);
  v_result := public.move_order_status(
    v_order_id, v_status, 'seller', p_note, p_carrier, p_tracking_number, p_tracking_url
  );

  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this move could commit';
  end if;
  return v_result;
end;
$$;

revoke execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  to service_role;

alter table public.order_status_history enable row level security;

-- A buyer's history of their own orders, by named columns: each status and when it was taken. Who made a
-- change, and the move's details, stay private unless granted.
create policy order_status_history_buyer_read on public.order_status_history
  for select to authenticated
  using (order_id = any (array(
    select o.id from public.orders o where o.buyer_user_id = (select auth.uid())
  )));

revoke all on public.order_status_history from anon, authenticated, service_role;
grant select on public.order_status_history to service_role;
grant select (id, order_id, from_status, to_status, changed_at) on public.order_status_history
  to authenticated;
-- the API roles never call nextval directly (an identity column needs no grant on its sequence)
revoke all on sequence public.order_status_history_id_seq from anon, authenticated, service_role;
