-- The outbox drains within Supabase's limits (contract, "Under concurrency, at scale, on a slow day").
-- With a provider that accepted connections and never answered, one drain run took 378 s for 12 rows; the
-- 5-minute stale claim let the next run take the same rows, their results were discarded, and no row ever
-- became dead. A run now has a budget (the functions' OUTBOX_DRAIN_BUDGET_MS, every provider request bounded by
-- EMAIL_SEND_TIMEOUT_MS), records each result as it comes, and:
-- 1. Claims that expire with their run. A drain's claim carries its expiry (claim_expires_at: the run's end,
--    its budget plus one send's timeout, handed in as p_claim_ms). Until then no other run takes the row;
--    after it any run may, and record_email_results refuses the late result of the expired claim. Claims made
--    by the request path (create_order, the status moves, the cancellation of unpaid orders) carry none: they
--    are due again p_stale_after_seconds after they were made, as before.
-- 2. Batches that keep every e-mail sent once. Resend's batch endpoint sends up to 100 e-mails a request under
--    one idempotency key for the whole request, so a batch whose answer was lost and that is retried in another
--    grouping would deliver its e-mails twice, and an e-mail once tried alone under its own key
--    (`order/<orderId>/<kind>`) would be delivered twice in a batch. Two columns say what a row's earlier
--    requests may have done:
--    - delivery_unknown: some request carrying the row may have delivered it (its answer was lost: a time-out, a
--      network error, a 5xx; or its claim expired with the claimer's outcome unknown).
--    - batch_key: the batch the row was claimed into (`outbox/batch/<uuid>`), given when the claim is made,
--      before any request.
--    A row that no request may have delivered (delivery_unknown false, batch_key null) may join a new batch. A
--    row in a batch is only ever sent with that batch, whole, under its key: claimed together, sent as one
--    request, so Resend answers a retry with the first answer instead of sending again. A batch refused for sure
--    (a 429, a 4xx), none of whose requests may have delivered, is dissolved (batch_key null again). Any other
--    row that may have been delivered is sent alone under its own key, for ever. Rows of a batch move together
--    (claimed, recorded, dead together).
-- 3. Superseded e-mails (the previous migration): the claim marks them `superseded` instead of claiming them.
-- 4. A claimer can hand back rows it claimed and never sent (the run's budget ended first, or a 429 that it
--    did not try again: a rate limit is the provider's pace, not a failure of the e-mail): `released`, back to
--    pending or failed, due at once (its claimed_at cleared), no failure counted (its refused requests are
--    counted as attempts).
-- Claims are serialized by a transaction-level advisory lock, so that two runs never split one batch.

alter table public.email_outbox
  add column claim_expires_at timestamptz,
  add column batch_key text check (batch_key ~ '^outbox/batch/[0-9a-f-]{36}$'),
  add column delivery_unknown boolean not null default false,
  add constraint email_outbox_claim_expiry_only_when_sending check (claim_expires_at is null or status = 'sending');

-- A batch's rows, to claim them together.
create index email_outbox_batch_idx on public.email_outbox (batch_key)
  where batch_key is not null and status in ('pending', 'sending', 'failed');

-- The e-mail as a sender needs it (as before), with the batch it belongs to.
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
    'batchKey', p_row.batch_key,
    'payload', case
      when p_row.payload is null then public.order_email_data(p_row.order_id)
      else p_row.payload || jsonb_build_object('orderNumber', o.order_number)
    end
  )
  from public.orders o
  where o.id = p_row.order_id;
$$;

-- Whether a row may be claimed now: pending rows p_min_age_seconds after they were written (or handed back),
-- failed rows p_min_age_seconds × 2^(failures - 1) after their last send (at most × 256), and rows still
-- 'sending' once their claim has expired (a drain's at claim_expires_at, any other p_stale_after_seconds
-- after it was made).
create or replace function public.email_outbox_due(
  p_row public.email_outbox,
  p_min_age_seconds integer,
  p_stale_after_seconds integer
)
returns boolean
language sql
stable
set search_path = ''
as $$
  select case p_row.status
    when 'pending' then
      coalesce(p_row.claimed_at, p_row.created_at) <= now() - make_interval(secs => p_min_age_seconds)
    when 'failed' then
      coalesce(p_row.claimed_at, p_row.created_at)
        <= now() - make_interval(secs => p_min_age_seconds * power(2, least(greatest(p_row.failures, 1), 9) - 1))
    when 'sending' then
      coalesce(p_row.claim_expires_at, p_row.claimed_at + make_interval(secs => p_stale_after_seconds)) <= now()
    else false
  end;
$$;

-- One claim of a drain run: marks superseded rows, then claims the rows of one kind of request, oldest due
-- first, each under a new claim token, expiring p_claim_ms from now; never a row the same run has claimed or
-- tried already (the run started p_run_ms ago), so a row fails at most once a run, whatever its minimum age:
-- - the oldest due row is in a batch: that batch, whole (one request; none when p_batch_limit is 0);
-- - it may have been delivered alone, or p_batch_limit is 0 (the mailer has no batch endpoint): up to
--   p_alone_limit such rows (one request each);
-- - else: up to p_batch_limit rows that no request may have delivered, as a new batch (one request).
-- Answers { emails: [messages, a batch's in its order], superseded: [{ id, orderId, kind }] }.
drop function public.claim_due_emails(integer, integer, integer);
create function public.claim_due_emails(
  p_batch_limit integer,
  p_alone_limit integer,
  p_min_age_seconds integer,
  p_stale_after_seconds integer,
  p_claim_ms integer,
  p_run_ms integer
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_expires timestamptz;
  v_run_start timestamptz;
  v_superseded jsonb;
  v_first public.email_outbox;
  v_key text;
  v_ids uuid[];
  v_emails jsonb;
begin
  if p_batch_limit is null or p_batch_limit not between 0 and 100
    or p_alone_limit is null or p_alone_limit not between 1 and 100
    or p_min_age_seconds is null or p_min_age_seconds < 0
    or p_stale_after_seconds is null or p_stale_after_seconds < 0
    or p_claim_ms is null or p_claim_ms not between 1 and 600000
    or p_run_ms is null or p_run_ms not between 0 and 600000 then
    raise exception 'claim_due_emails: limits 0-100 and 1-100, ages >= 0, a claim of 1-600000 ms, a run of 0-600000 ms'
      using errcode = '22023';
  end if;
  v_expires := now() + make_interval(secs => p_claim_ms / 1000.0);
  v_run_start := now() - make_interval(secs => p_run_ms / 1000.0);
  -- one claimer at a time: a batch is claimed whole or not at all
  perform pg_advisory_xact_lock(hashtextextended('public.claim_due_emails', 0));

  with candidates as (
    select e.id
    from public.email_outbox e
    join public.orders o on o.id = e.order_id
    where e.status in ('pending', 'sending', 'failed')
      and public.email_superseded(e.kind, o.status)
      and (e.status <> 'sending'
        or coalesce(e.claim_expires_at, e.claimed_at + make_interval(secs => p_stale_after_seconds)) <= now())
    for update of e skip locked
  ),
  superseded as (
    update public.email_outbox e
    set status = 'superseded', claim_token = null, claim_expires_at = null
    from candidates c
    where e.id = c.id
    returning e.id, e.order_id, e.kind
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'orderId', s.order_id, 'kind', s.kind)
    order by s.id), '[]'::jsonb)
  into v_superseded
  from superseded s;

  select e.* into v_first
  from public.email_outbox e
  where e.status in ('pending', 'sending', 'failed')
    and public.email_outbox_due(e, p_min_age_seconds, p_stale_after_seconds)
    and coalesce(e.claimed_at, e.created_at) < v_run_start
    -- a batch goes only as itself: never to a mailer without a batch endpoint
    and (e.batch_key is null or p_batch_limit > 0)
  order by coalesce(e.claimed_at, e.created_at), e.id
  limit 1;

  if v_first.id is null then
    v_ids := '{}';
  elsif v_first.batch_key is not null then
    -- the batch, whole: its rows share their state (claimed, recorded and dead together)
    v_key := v_first.batch_key;
    select array_agg(m.id order by m.id) into v_ids
    from (
      select e.id
      from public.email_outbox e
      where e.batch_key = v_key
        and e.status in ('pending', 'sending', 'failed')
        and public.email_outbox_due(e, 0, p_stale_after_seconds)
      order by e.id
      for update of e
    ) m;
  elsif v_first.delivery_unknown or v_first.status = 'sending' or p_batch_limit = 0 then
    -- alone, each under its own key; an expired claim's row among them (its claimer may have sent it alone)
    select array_agg(m.id) into v_ids
    from (
      select e.id
      from public.email_outbox e
      where e.status in ('pending', 'sending', 'failed')
        and e.batch_key is null
        and (e.delivery_unknown or e.status = 'sending' or p_batch_limit = 0)
        and public.email_outbox_due(e, p_min_age_seconds, p_stale_after_seconds)
        and coalesce(e.claimed_at, e.created_at) < v_run_start
      order by coalesce(e.claimed_at, e.created_at), e.id
      limit p_alone_limit
      for update of e skip locked
    ) m;
  else
    -- a new batch of rows no request may have delivered
    v_key := 'outbox/batch/' || gen_random_uuid()::text;
    select array_agg(m.id) into v_ids
    from (
      select e.id
      from public.email_outbox e
      where e.status in ('pending', 'failed')
        and e.batch_key is null
        and not e.delivery_unknown
        and public.email_outbox_due(e, p_min_age_seconds, p_stale_after_seconds)
        and coalesce(e.claimed_at, e.created_at) < v_run_start
      order by coalesce(e.claimed_at, e.created_at), e.id
      limit p_batch_limit
      for update of e skip locked
    ) m;
  end if;

  with claimed as (
    update public.email_outbox e
    set
      status = 'sending',
      claimed_at = now(),
      claim_token = gen_random_uuid(),
      claim_expires_at = v_expires,
      -- a claim that expired may have been sent by its claimer: with its batch, else alone
      delivery_unknown = e.delivery_unknown or e.status = 'sending',
      batch_key = coalesce(e.batch_key, v_key)
    where e.id = any(coalesce(v_ids, '{}'))
    returning e.*
  )
  select coalesce(jsonb_agg(public.email_outbox_message(c) order by c.id), '[]'::jsonb)
  into v_emails
  from claimed c;

  return jsonb_build_object('emails', v_emails, 'superseded', v_superseded);
end;
$$;

-- Records what the provider answered, for rows still claimed under the token given whose claim has not
-- expired:
--   [{ "id", "claimToken", "attempts", "providerId"? }                        sent
--    | { "id", "claimToken", "attempts", "error", "maybeDelivered"? }         failed (dead at the 10th failure)
--    | { "id", "claimToken", "released": true, "attempts"? }]                 never sent: back to pending/failed
-- providerId may be null: the provider answered that it had the message already under its key. A failed
-- result whose request may have delivered the row (maybeDelivered; absent: false) marks the row so; a batch
-- refused for sure whose rows no request may have delivered is dissolved. Returns the rows recorded with
-- their new status, [{ "id", "status" }]; a result missing from the answer was refused (its claim is no
-- longer current).
create or replace function public.record_email_results(p_results jsonb)
returns jsonb
language sql
security definer
set search_path = ''
as $$
  with results as (
    select r.id, r."claimToken" as claim_token, r.attempts, r."providerId" as provider_id, r.error,
      coalesce(r."maybeDelivered", false) as maybe_delivered, coalesce(r.released, false) as released
    from jsonb_to_recordset(p_results) as r(
      id uuid, "claimToken" uuid, attempts integer, "providerId" text, error text, "maybeDelivered" boolean,
      released boolean
    )
  ),
  updated as (
    update public.email_outbox e
    set
      status = case
        when r.released then case when e.failures > 0 then 'failed' else 'pending' end
        when r.error is null then 'sent'
        when e.failures + 1 >= 10 then 'dead'
        else 'failed'
      end,
      attempts = e.attempts + case
        when r.released then greatest(coalesce(r.attempts, 0), 0)
        else greatest(coalesce(r.attempts, 1), 1)
      end,
      failures = e.failures + case when r.error is not null and not r.released then 1 else 0 end,
      provider_id = coalesce(r.provider_id, e.provider_id),
      last_error = case
        when r.released then e.last_error
        when r.error is null then null
        else left(r.error, 2000)
      end,
      sent_at = case when r.error is null and not r.released then now() end,
      -- a row handed back was due when it was claimed: it stays due, first in line
      claimed_at = case when r.released then null else e.claimed_at end,
      claim_token = null,
      claim_expires_at = null,
      delivery_unknown = e.delivery_unknown or (r.maybe_delivered and not r.released),
      batch_key = case
        when (r.released or r.error is not null) and not (e.delivery_unknown or r.maybe_delivered) then null
        else e.batch_key
      end
    from results r
    where e.id = r.id and e.status = 'sending' and e.claim_token = r.claim_token
      and (e.claim_expires_at is null or e.claim_expires_at > now())
    returning e.id, e.status
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'status', u.status) order by u.id), '[]'::jsonb)
  from updated u;
$$;

revoke execute on function public.email_outbox_message(public.email_outbox) from public, anon, authenticated;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;
revoke execute on function public.email_outbox_due(public.email_outbox, integer, integer)
  from public, anon, authenticated;
grant execute on function public.email_outbox_due(public.email_outbox, integer, integer) to service_role;
revoke execute on function public.claim_due_emails(integer, integer, integer, integer, integer, integer)
  from public, anon, authenticated;
grant execute on function public.claim_due_emails(integer, integer, integer, integer, integer, integer)
  to service_role;
revoke execute on function public.record_email_results(jsonb) from public, anon, authenticated;
grant execute on function public.record_email_results(jsonb) to service_role;
