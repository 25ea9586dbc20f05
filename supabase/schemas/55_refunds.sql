-- Refunds: money goes back by itself (contract, "Payments through Razorpay: taking and giving back the
-- money"). One row per payment whose money is due back, written in the transaction that made it due:
-- confirm_payment's duplicate_payment, order_cancelled, method_mismatch, amount_mismatch and
-- currency_mismatch (50_payments.sql), and move_order_status's cancellation of an order a payment had paid,
-- whoever cancels it (the seller, the unpaid-order clock; 30_order_lifecycle.sql). A upi_direct order the
-- seller had confirmed paid gets a `manual` row when it is cancelled: the store returns that money itself.
--   pending    due back, not yet issued at the gateway
--   issued     the gateway took it (provider_refund_id is its id); banks credit it in 5-7 working days
--   processed  the gateway reports it credited (refund.processed)
--   failed     the gateway reports it failed (refund.failed), or 10 attempts to issue it failed: a person
--              returns the money (then marks it `manual`) or sets it `pending` again
--   manual     the store returns the money itself (upi_direct), or a person did
--
-- Issuing them: the drain's run (outbox-drain on Supabase, `deno task outbox` locally) claims the `pending`
-- refunds that are due, issues each at the gateway with the adopt-before-create rule (Razorpay: list the
-- payment's refunds and adopt one whose receipt is the refund's id, else create it with that receipt), and
-- records each result as it comes; the gateway's refund events (payment-webhook: refund.processed,
-- refund.failed) settle them. Three functions, security definer, service_role only, and one read:
-- - claim_due_refunds: claims up to p_limit due refunds, fewest attempts first, then oldest first (a refund
--   the gateway keeps refusing goes behind those never tried), each under a new claim token that expires
--   with the run (p_claim_ms, as the outbox's claims): a new refund is due at once; one whose last
--   attempt failed p_min_age_seconds × 2^(attempts - 1) after it (at most × 256); never one this run tried
--   already (the run started p_run_ms ago), so a refund is tried at most once a run (a claim outside any
--   run, p_run_ms 0, has tried nothing).
-- - record_refund_result: the claimer's result, refused (recorded: false) unless the refund is still claimed
--   under p_claim_token. The gateway's refund: `issued` with its id (or straight `processed` / `failed` when
--   the gateway says so already: an adopted refund), claim cleared, and the buyer's refund e-mail queued,
--   claimed for the run to send (queue_refund_email: once per refund). Returns { recorded, refundId,
--   orderId, status, attempts, emails }. An error: attempts + 1 and the error, and at p_max_attempts
--   attempts (10) the refund is `failed`, for a person. Released (p_release): the claim is handed back
--   untried, nothing counted (the run's budget ended first).
-- - record_refund_event: a signed refund event, decided once per event id (refund_events). The refund is
--   found by the receipt the gateway echoes (our refund's id), else by the gateway's refund id, and only
--   among the refunds of the payment the event names. An event kept already is answered at once with
--   `replayed: true`, `changed: false` and the refund's status now. `processed` ends a pending, issued or
--   failed refund (Razorpay's later word; it queues the refund e-mail, unless it went already); `failed` a
--   pending or issued one, never a processed one; the gateway's refund id is kept. A stale event changes
--   nothing; a refund not ours (made by hand in the gateway's dashboard) is answered found: false.
-- - failed_refunds: the failed refunds, newest first, for the drain's report.
--
-- THE LOCK ORDER (07_lock_order.sql). A refund row is written new (rank 7) by confirm_payment and
-- move_order_status, which hold the order's queue and row: no one else can hold it, and its unique key (one
-- per payment) is guarded by rank 1 and 2. An existing refund row is locked only by the refund functions
-- here (claim_due_refunds with SKIP LOCKED, record_refund_result and record_refund_event behind its queue
-- `refund/<id>`; record_refund_event after only its event's own queue `refund-event/<provider>/<event id>`,
-- rank 1, which no other writer takes), each in a transaction of its own that holds no other lock of ranks
-- 1-8 before it; after it they write only new rows (rank 7; their foreign keys take a key-share lock on the
-- order's row, which a move holding that row never waits for a refund row to release). So a refund row comes
-- after every other rank, and no writer of ours waits for one while holding another lock.
--
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCT00 DEADLINE_EXCEEDED, 22023 for a
-- claim's or result's limits out of range.

create table public.refunds (
  id uuid primary key default public.uuid_v7(),
  -- the payment's deciding row in the ledger; null only for a `manual` refund of money the gateway never saw
  payment_id uuid references public.payments (id) on delete restrict,
  order_id uuid not null references public.orders (id) on delete restrict,
  amount numeric(14, 2) not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  status text not null default 'pending'
    check (status in ('pending', 'issued', 'processed', 'failed', 'manual')),
  provider_refund_id text
    check (provider_refund_id is null or public.is_one_line_text(provider_refund_id, 255)),
  -- attempts to issue it at the gateway, and the last one's error
  attempts integer not null default 0 check (attempts >= 0),
  last_error text check (length(last_error) <= 500),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- a drain's claim, as the outbox's: only its claimer records its result, and it lapses with its run
  claim_token uuid,
  claim_expires_at timestamptz,
  last_attempt_at timestamptz,
  constraint refunds_through_the_gateway_or_manual check (payment_id is not null or status = 'manual'),
  constraint refunds_issued_have_their_id
    check (status not in ('issued', 'processed') or provider_refund_id is not null),
  constraint refunds_claimed_while_pending check (claim_token is null or status = 'pending')
);

-- one refund per payment (its deciding row stands for every event of it), one manual refund per order
create unique index refunds_one_per_payment on public.refunds (payment_id);
create unique index refunds_one_manual_per_order on public.refunds (order_id) where payment_id is null;
create unique index refunds_provider_refund on public.refunds (provider_refund_id)
  where provider_refund_id is not null;
create index refunds_order_id_idx on public.refunds (order_id);
-- the due refunds, fewest attempts first, then oldest first (claim_due_refunds' order)
create index refunds_due_idx on public.refunds (attempts, created_at, id) where status = 'pending';
create index refunds_failed_idx on public.refunds (updated_at) where status = 'failed';

-- One row per refund event of one of our refunds, (provider, event id) once: an event Razorpay repeats (it
-- sends one again under the same x-razorpay-event-id until it is answered 200), or a signed body sent again,
-- is answered as it was and changes nothing (an old refund.failed cannot fail a refund a person set pending
-- again). Events of refunds not ours are not kept: they change nothing, and name no refund. Written by
-- record_refund_event only; append-only for every API role, as the payments ledger.
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

-- What a refund is for never changes: the payment, the order, the amount and currency, its creation.
create or replace function public.keep_refund_facts()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is distinct from old.id or new.payment_id is distinct from old.payment_id
    or new.order_id is distinct from old.order_id or new.amount is distinct from old.amount
    or new.currency is distinct from old.currency or new.created_at is distinct from old.created_at then
    raise exception using errcode = 'OCM00',
      message = 'ORDER_IMMUTABLE: a refund''s payment, order, amount and currency never change';
  end if;
  new.updated_at := now();
  return new;
end;
$$;

revoke execute on function public.keep_refund_facts() from public, anon, authenticated, service_role;

create trigger refunds_keep_facts before update on public.refunds
  for each row execute function public.keep_refund_facts();

-- The refund's answer in the functions' results: { refundId, amount (rupees), currency, status }.
create or replace function public.refund_answer(p_refund public.refunds)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object(
    'refundId', p_refund.id, 'amount', p_refund.amount, 'currency', p_refund.currency, 'status', p_refund.status
  );
$$;

revoke execute on function public.refund_answer(public.refunds)
  from public, anon, authenticated, service_role;
grant execute on function public.refund_answer(public.refunds) to service_role;

-- What a claimer needs to issue a refund: { refundId, orderId, provider, providerPaymentId, amountMinor,
-- currency, attempts, claimToken }.
create or replace function public.refund_claim_message(p_refund public.refunds)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'refundId', p_refund.id, 'orderId', p_refund.order_id, 'provider', p.provider,
    'providerPaymentId', p.provider_payment_id, 'amountMinor', (p_refund.amount * 100)::bigint,
    'currency', p_refund.currency, 'attempts', p_refund.attempts, 'claimToken', p_refund.claim_token
  )
  from public.payments p
  where p.id = p_refund.payment_id;
$$;

revoke execute on function public.refund_claim_message(public.refunds)
  from public, anon, authenticated, service_role;
grant execute on function public.refund_claim_message(public.refunds) to service_role;

create or replace function public.claim_due_refunds(
  p_limit integer,
  p_min_age_seconds integer,
  p_claim_ms integer,
  p_run_ms integer default 0
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_claimed jsonb;
begin
  if p_limit is null or p_limit not between 1 and 100
    or p_min_age_seconds is null or p_min_age_seconds < 0
    or p_claim_ms is null or p_claim_ms not between 1 and 600000
    or p_run_ms is null or p_run_ms not between 0 and 600000 then
    raise exception 'claim_due_refunds: a limit of 1-100, an age >= 0, a claim of 1-600000 ms, a run of 0-600000 ms'
      using errcode = '22023';
  end if;
  with due as (
    select r.id
    from public.refunds r
    where r.status = 'pending'
      and (r.claim_token is null or r.claim_expires_at <= now())
      and (r.last_attempt_at is null or (
        r.last_attempt_at <= now() - make_interval(
          secs => p_min_age_seconds * power(2, least(greatest(r.attempts, 1), 9) - 1)
        )
        and (p_run_ms = 0 or r.last_attempt_at < now() - make_interval(secs => p_run_ms / 1000.0))
      ))
    order by r.attempts, r.created_at, r.id
    limit p_limit
    for update skip locked
  ),
  claimed as (
    update public.refunds r
    set claim_token = gen_random_uuid(), claim_expires_at = now() + make_interval(secs => p_claim_ms / 1000.0)
    from due
    where r.id = due.id
    returning r.*
  )
  select coalesce(jsonb_agg(public.refund_claim_message(c) order by c.attempts, c.created_at, c.id), '[]'::jsonb)
  into v_claimed
  from claimed c;
  return v_claimed;
end;
$$;

revoke execute on function public.claim_due_refunds(integer, integer, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.claim_due_refunds(integer, integer, integer, integer) to service_role;

create or replace function public.record_refund_result(
  p_refund_id uuid,
  p_claim_token uuid,
  p_provider_refund_id text default null,
  p_provider_status text default null,
  p_error text default null,
  p_release boolean default false,
  p_max_attempts integer default 10
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_refund public.refunds;
  v_status text;
  v_emails jsonb := '[]'::jsonb;
begin
  -- no deadline of its caller's: the database's own, 6 s from its start
  perform public.start_deadline(null, 'refund result');
  if p_max_attempts is null or p_max_attempts not between 1 and 100
    or num_nonnulls(p_provider_refund_id, p_error) + (case when p_release then 1 else 0 end) <> 1 then
    raise exception 'record_refund_result: one of a provider refund id, an error or a release; at most 100 attempts'
      using errcode = '22023';
  end if;
  if p_provider_refund_id is not null and not public.is_one_line_text(p_provider_refund_id, 255) then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the refund result is invalid',
      detail = jsonb_build_array(jsonb_build_object(
        'path', 'providerRefundId', 'message', 'providerRefundId must be one line of 1 to 255 characters'
      ))::text;
  end if;

  -- its row through the refund's queue, as record_refund_event reaches it: one wait, bounded by the deadline
  perform public.join_queue('refund/' || p_refund_id::text);
  select r.* into v_refund from public.refunds r where r.id = p_refund_id for update;
  if not found or v_refund.claim_token is distinct from p_claim_token then
    return jsonb_build_object('recorded', false, 'refundId', p_refund_id);
  end if;

  if p_release then
    update public.refunds r set claim_token = null, claim_expires_at = null
    where r.id = v_refund.id
    returning r.* into v_refund;
  elsif p_provider_refund_id is not null then
    v_status := case p_provider_status when 'processed' then 'processed' when 'failed' then 'failed' else 'issued' end;
    update public.refunds r
    set status = v_status, provider_refund_id = p_provider_refund_id, attempts = r.attempts + 1,
      last_attempt_at = now(), last_error = null, claim_token = null, claim_expires_at = null
    where r.id = v_refund.id
    returning r.* into v_refund;
    -- the gateway holds it: the buyer's refund e-mail, once per refund, claimed for the drain to send
    if v_status <> 'failed' then
      v_emails := public.queue_refund_email(v_refund.id, true);
    end if;
  else
    update public.refunds r
    set status = case when r.attempts + 1 >= p_max_attempts then 'failed' else 'pending' end,
      attempts = r.attempts + 1, last_attempt_at = now(),
      last_error = left(regexp_replace(p_error, '[\x01-\x1f\x7f-\x9f\u2028\u2029]+', ' ', 'g'), 500),
      claim_token = null, claim_expires_at = null
    where r.id = v_refund.id
    returning r.* into v_refund;
  end if;

  return jsonb_build_object(
    'recorded', true, 'refundId', v_refund.id, 'orderId', v_refund.order_id, 'status', v_refund.status,
    'attempts', v_refund.attempts, 'emails', v_emails
  );
end;
$$;

revoke execute on function public.record_refund_result(uuid, uuid, text, text, text, boolean, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.record_refund_result(uuid, uuid, text, text, text, boolean, integer)
  to service_role;

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
  from public, anon, authenticated, service_role;
grant execute on function public.record_refund_event(text, text, text, text, text, text, timestamptz)
  to service_role;

-- The failed refunds, newest first: { total, refunds: [{ refundId, orderId, amount, currency, attempts,
-- lastError, updatedAt }] } (at most p_limit listed).
create or replace function public.failed_refunds(p_limit integer default 20)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'total', (select count(*) from public.refunds r where r.status = 'failed'),
    'refunds', coalesce((
      select jsonb_agg(jsonb_build_object(
        'refundId', f.id, 'orderId', f.order_id, 'amount', f.amount, 'currency', f.currency,
        'attempts', f.attempts, 'lastError', f.last_error, 'updatedAt', f.updated_at
      ) order by f.updated_at desc, f.id desc)
      from (
        select r.* from public.refunds r where r.status = 'failed'
        order by r.updated_at desc, r.id desc
        limit greatest(0, least(coalesce(p_limit, 20), 100))
      ) f
    ), '[]'::jsonb)
  );
$$;

revoke execute on function public.failed_refunds(integer) from public, anon, authenticated, service_role;
grant execute on function public.failed_refunds(integer) to service_role;

-- Read by the service role (an operator's queries, the types); written only by the functions above.
alter table public.refunds enable row level security;
alter table public.refund_events enable row level security;
revoke all on public.refunds, public.refund_events from anon, authenticated, service_role;
grant select on public.refunds, public.refund_events to service_role;
