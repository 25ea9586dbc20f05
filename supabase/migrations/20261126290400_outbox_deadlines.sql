-- claim_due_emails and record_email_results under the deadline rule of 20261126000300_lock_order.sql, as the
-- other writers are (both replaced whole, from 20261126150600_outbox_run_claims.sql, with a new last parameter
-- p_deadline timestamptz default null: the caller's deadline, at most 6 s from the call's start as
-- start_deadline caps it, and 6 s when none is given). Neither had a deadline: with another session holding an
-- outbox row, the results call that concurrent orders share (coalesced) waited for it until the 8 s statement
-- timeout, 4.6 s past the requests' deadlines, and then recorded nothing at all.
-- - record_email_results never waits: it records the rows it can lock at once (FOR UPDATE SKIP LOCKED) and
--   leaves a row another transaction holds as it is, absent from its answer like a refused result. Such a row
--   stays claimed until its claim expires (a drain's with its run, the request path's after the stale age),
--   and is then sent again alone under its own key, which the provider answers without a second e-mail.
--   A result committed after its caller's deadline is still a fact: it has no check before commit.
-- - claim_due_emails waits for the one claimer before it through the claim's queue (the same advisory lock as
--   before, taken with join_queue) and for a batch's rows one statement at a time in id order, every wait
--   bounded by the time left (55P03 at the deadline); the other rows it takes with SKIP LOCKED, as before. It
--   rolls back rather than commit a claim past its deadline (OCT00): its caller has given up, and the rows
--   would sit claimed until the claim expired.
-- The outbox's rows stay last in the lock order: a transaction holding them takes nothing of ranks 1-8.
--
-- SQLSTATEs: OCT00 DEADLINE_EXCEEDED (the deadline passed before the call started, or a claim before commit);
-- 55P03 a claim's wait that reached the deadline; 22023 invalid limits (claim_due_emails, as before).

-- One claim of a drain run: marks superseded rows, then claims the rows of one kind of request, oldest due
-- first, each under a new claim token, expiring p_claim_ms from now; never a row the same run has claimed or
-- tried already (the run started p_run_ms ago), so a row fails at most once a run, whatever its minimum age:
-- - the oldest due row is in a batch: that batch, whole (one request; none when p_batch_limit is 0);
-- - it may have been delivered alone, or p_batch_limit is 0 (the mailer has no batch endpoint): up to
--   p_alone_limit such rows (one request each);
-- - else: up to p_batch_limit rows that no request may have delivered, as a new batch (one request).
-- Answers { emails: [messages, a batch's in its order], superseded: [{ id, orderId, kind }] }. Every wait ends by
-- p_deadline (at most 6 s from the call's start).
drop function public.claim_due_emails(integer, integer, integer, integer, integer, integer);
create function public.claim_due_emails(
  p_batch_limit integer,
  p_alone_limit integer,
  p_min_age_seconds integer,
  p_stale_after_seconds integer,
  p_claim_ms integer,
  p_run_ms integer,
  p_deadline timestamptz default null
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
  v_id uuid;
begin
  perform public.start_deadline(p_deadline, 'claim');
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
  -- one claimer at a time: a batch is claimed whole or not at all (the same advisory lock as before, now a
  -- queue: one wait, bounded by the deadline)
  perform public.join_queue('public.claim_due_emails');

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
    -- Its rows are locked one statement each, in id order, each wait bounded by the time left: the claim queue
    -- makes this the only claimer waiting, and record_email_results never waits, so each row is one wait.
    v_key := v_first.batch_key;
    v_ids := '{}';
    for v_id in
      select e.id from public.email_outbox e
      where e.batch_key = v_key and e.status in ('pending', 'sending', 'failed')
        and public.email_outbox_due(e, 0, p_stale_after_seconds)
      order by e.id
    loop
      perform public.bound_lock_wait();
      -- rechecked on the row's latest version once its lock is ours
      if exists (
        select 1 from public.email_outbox e
        where e.id = v_id and e.batch_key = v_key and e.status in ('pending', 'sending', 'failed')
          and public.email_outbox_due(e, 0, p_stale_after_seconds)
        for update of e
      ) then
        v_ids := v_ids || v_id;
      end if;
    end loop;
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

  -- a claim its caller has given up on stays unclaimed rather than sit claimed until it expires
  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this claim could commit';
  end if;
  return jsonb_build_object('emails', v_emails, 'superseded', v_superseded);
end;
$$;

-- Records what the provider answered, for rows still claimed under the token given whose claim has not
-- expired, and that no other transaction holds now:
--   [{ "id", "claimToken", "attempts", "providerId"? }                        sent
--    | { "id", "claimToken", "attempts", "error", "maybeDelivered"? }         failed (dead at the 10th failure)
--    | { "id", "claimToken", "released": true, "attempts"? }]                 never sent: back to pending/failed
-- providerId may be null: the provider answered that it had the message already under its key. A failed
-- result whose request may have delivered the row (maybeDelivered; absent: false) marks the row so; a batch
-- refused for sure whose rows no request may have delivered is dissolved. Returns the rows recorded with
-- their new status, [{ "id", "status" }]; a result missing from the answer was refused (its claim is no
-- longer current) or left (its row was held by another transaction).
drop function public.record_email_results(jsonb);
create function public.record_email_results(p_results jsonb, p_deadline timestamptz default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_recorded jsonb;
begin
  perform public.start_deadline(p_deadline, 'record of e-mail results');
  with results as (
    select r.id, r."claimToken" as claim_token, r.attempts, r."providerId" as provider_id, r.error,
      coalesce(r."maybeDelivered", false) as maybe_delivered, coalesce(r.released, false) as released
    from jsonb_to_recordset(p_results) as r(
      id uuid, "claimToken" uuid, attempts integer, "providerId" text, error text, "maybeDelivered" boolean,
      released boolean
    )
  ),
  -- the rows this call may record, locked now or left: it never waits for another transaction's lock
  claimed as (
    select e.id
    from public.email_outbox e
    join results r on r.id = e.id
    where e.status = 'sending' and e.claim_token = r.claim_token
      and (e.claim_expires_at is null or e.claim_expires_at > now())
    for update of e skip locked
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
    join claimed c on c.id = r.id
    where e.id = r.id and e.status = 'sending' and e.claim_token = r.claim_token
    returning e.id, e.status
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'status', u.status) order by u.id), '[]'::jsonb)
  into v_recorded
  from updated u;
  return v_recorded;
end;
$$;

revoke execute on function public.claim_due_emails(integer, integer, integer, integer, integer, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.claim_due_emails(integer, integer, integer, integer, integer, integer, timestamptz)
  to service_role;
revoke execute on function public.record_email_results(jsonb, timestamptz) from public, anon, authenticated;
grant execute on function public.record_email_results(jsonb, timestamptz) to service_role;
