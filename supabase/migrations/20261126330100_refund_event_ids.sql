-- A refund event is decided once per event id, as a payment event is (payments_one_per_event): Razorpay
-- repeats an event under the same x-razorpay-event-id until it is answered 200, and anyone holding a signed
-- body can send it again. record_refund_event compared the event with the refund's state only, so an old
-- refund.failed sent again after a person had set the refund pending again (docs/operate.md, "Refunds")
-- failed it once more.
-- 1. refund_events: one row per refund event of one of our refunds, (provider, event id) unique, kept with
--    what the event said and whether it changed the refund. Events of refunds not ours are not kept (they
--    change nothing, and name no refund). Written by record_refund_event only; service_role reads it.
-- 2. record_refund_event gains p_event_id (after p_provider; the old signature is dropped, so no caller
--    settles a refund without naming the event). It joins the event's queue `refund-event/<provider>/<id>`
--    first (rank 1 of 20261126000300_lock_order.sql: the request's own advisory lock; no other writer takes
--    it), answers a kept event at once with `replayed: true`, `changed: false` and the refund's status now,
--    and otherwise decides as before (a `failed` event never ends a `processed` refund; a `processed` one
--    ends a `failed` refund: Razorpay's later word) and keeps the event. Its answer gains `replayed`.
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }], `eventId` among the paths), OCT00.

create table public.refund_events (
  provider text not null check (provider ~ '^[a-z][a-z0-9_]{1,31}$'),
  provider_event_id text not null check (public.is_one_line_text(provider_event_id, 255)),
  refund_id uuid not null references public.refunds (id) on delete restrict,
  provider_refund_id text not null check (public.is_one_line_text(provider_refund_id, 255)),
  -- what the event said, and whether it changed the refund (a stale or out-of-order event does not)
  status text not null check (status in ('processed', 'failed')),
  changed boolean not null,
  received_at timestamptz not null default now(),
  constraint refund_events_one_per_event primary key (provider, provider_event_id)
);
create index refund_events_refund_id_idx on public.refund_events (refund_id);

-- Append-only for every API role, as the payments ledger: service_role reads, anon and authenticated see nothing.
alter table public.refund_events enable row level security;
revoke all on public.refund_events from anon, authenticated, service_role;
grant select on public.refund_events to service_role;

drop function public.record_refund_event(text, text, text, text, text, timestamptz);

create function public.record_refund_event(
  p_provider text,
  p_event_id text,
  p_provider_payment_id text,
  p_provider_refund_id text,
  p_receipt text,
  p_status text,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_receipt uuid := case
    when p_receipt ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then p_receipt::uuid
  end;
  v_refund public.refunds;
  v_status text;
begin
  perform public.start_deadline(p_deadline, 'refund event');
  if p_provider is null or p_provider !~ '^[a-z][a-z0-9_]{1,31}$' then
    v_issues := v_issues || jsonb_build_object('path', 'provider', 'message', 'provider must be a lower-case name');
  end if;
  if not public.is_one_line_text(p_event_id, 255) then
    v_issues := v_issues || jsonb_build_object('path', 'eventId', 'message', 'eventId must be one line of 1 to 255 characters');
  end if;
  if not public.is_one_line_text(p_provider_payment_id, 255) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'providerPaymentId', 'message', 'providerPaymentId must be one line of 1 to 255 characters'
    );
  end if;
  if not public.is_one_line_text(p_provider_refund_id, 255) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'providerRefundId', 'message', 'providerRefundId must be one line of 1 to 255 characters'
    );
  end if;
  if p_status is null or p_status not in ('processed', 'failed') then
    v_issues := v_issues || jsonb_build_object('path', 'status', 'message', 'status must be processed or failed');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the refund event is invalid', detail = v_issues::text;
  end if;

  -- 1. One decision per event: a retry waits here for the first delivery, then answers without changing
  --    anything, whatever happened to the refund since (a person may have set it pending again).
  perform public.join_queue('refund-event/' || p_provider || '/' || p_event_id);
  select r.* into v_refund
  from public.refund_events e join public.refunds r on r.id = e.refund_id
  where e.provider = p_provider and e.provider_event_id = p_event_id;
  if found then
    return jsonb_build_object(
      'found', true, 'changed', false, 'replayed', true, 'refundId', v_refund.id,
      'orderId', v_refund.order_id, 'status', v_refund.status
    );
  end if;

  -- 2. Ours: by the receipt we gave it, else by the gateway's id; only a refund of the payment the event names
  select r.* into v_refund
  from public.refunds r join public.payments p on p.id = r.payment_id
  where (r.id = v_receipt or r.provider_refund_id = p_provider_refund_id)
    and p.provider = p_provider and p.provider_payment_id = p_provider_payment_id
  order by (r.id = v_receipt) desc nulls last
  limit 1;
  if not found then
    return jsonb_build_object('found', false, 'changed', false, 'replayed', false);
  end if;
  -- then locked: another event of the refund waits in the refund's queue, one wait each, bounded by the deadline
  perform public.join_queue('refund/' || v_refund.id::text);
  select r.* into v_refund from public.refunds r where r.id = v_refund.id for update;

  v_status := case
    -- another refund of the gateway's under our receipt: not this one's word
    when v_refund.provider_refund_id is distinct from p_provider_refund_id and v_refund.provider_refund_id is not null
      then v_refund.status
    when p_status = 'processed' and v_refund.status in ('pending', 'issued', 'failed') then 'processed'
    when p_status = 'failed' and v_refund.status in ('pending', 'issued') then 'failed'
    else v_refund.status
  end;
  if v_status <> v_refund.status then
    update public.refunds r
    set status = v_status, provider_refund_id = p_provider_refund_id, claim_token = null, claim_expires_at = null
    where r.id = v_refund.id;
    -- processed before the drain recorded it issued: the buyer's refund e-mail (once per refund) goes now
    if v_status = 'processed' then
      perform public.queue_refund_email(v_refund.id, false);
    end if;
  end if;

  -- 3. The event, kept: its retries are answered by step 1
  insert into public.refund_events (provider, provider_event_id, refund_id, provider_refund_id, status, changed)
  values (p_provider, p_event_id, v_refund.id, p_provider_refund_id, p_status, v_status <> v_refund.status);

  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this refund event could commit';
  end if;
  return jsonb_build_object(
    'found', true, 'changed', v_status <> v_refund.status, 'replayed', false, 'refundId', v_refund.id,
    'orderId', v_refund.order_id, 'status', v_status
  );
end;
$$;

revoke execute on function public.record_refund_event(text, text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.record_refund_event(text, text, text, text, text, text, timestamptz)
  to service_role;
