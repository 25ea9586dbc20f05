-- Issuing refunds, and the gateway's word on them. The drain's run (outbox-drain on Supabase, `deno task
-- outbox` locally) claims the `pending` refunds that are due, issues each at the gateway with the
-- adopt-before-create rule (Razorpay: list the payment's refunds and adopt one whose receipt is the refund's
-- id, else create it with that receipt), and records each result as it comes; the gateway's refund events
-- (payment-webhook: refund.processed, refund.failed) settle them. Three functions, security definer,
-- service_role only, and one read:
-- - claim_due_refunds: claims up to p_limit due refunds, oldest first, each under a new claim token that
--   expires with the run (p_claim_ms, as the outbox's claims): a new refund is due at once; one whose last
--   attempt failed p_min_age_seconds × 2^(attempts - 1) after it (at most × 256); never one this run tried
--   already (the run started p_run_ms ago), so a refund is tried at most once a run.
-- - record_refund_result: the claimer's result, refused (recorded: false) unless the refund is still claimed
--   under p_claim_token. The gateway's refund: `issued` with its id (or straight `processed` / `failed` when
--   the gateway says so already: an adopted refund), claim cleared. An error: attempts + 1 and the error, and
--   at p_max_attempts attempts (10) the refund is `failed`, for a person. Released (p_release): the claim is
--   handed back untried, nothing counted (the run's budget ended first).
-- - record_refund_event: a signed refund event. The refund is found by the receipt the gateway echoes (our
--   refund's id), else by the gateway's refund id, and only among the refunds of the payment the event names.
--   `processed` ends a pending, issued or failed refund; `failed` a pending or issued one; the gateway's
--   refund id is kept. A replayed or stale event changes nothing; a refund not ours (made by hand in the
--   gateway's dashboard) is answered found: false.
-- - failed_refunds: the failed refunds, newest first, for the drain's report.
-- A refund row is locked by these functions only, each in its own transaction and before anything else
-- (20261126150000_refunds.sql, "THE LOCK ORDER"); record_refund_event, a request's, reaches it through its
-- queue `refund/<id>`, so that every wait it makes is bounded by its deadline.
--
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCT00 DEADLINE_EXCEEDED, 22023 for a
-- claim's or result's limits out of range.

alter table public.refunds add column last_attempt_at timestamptz;

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
        and r.last_attempt_at < now() - make_interval(secs => p_run_ms / 1000.0)
      ))
    order by r.created_at, r.id
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
  select coalesce(jsonb_agg(public.refund_claim_message(c) order by c.created_at, c.id), '[]'::jsonb)
  into v_claimed
  from claimed c;
  return v_claimed;
end;
$$;

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
begin
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
    'attempts', v_refund.attempts
  );
end;
$$;

create or replace function public.record_refund_event(
  p_provider text,
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

  -- ours: by the receipt we gave it, else by the gateway's id; only a refund of the payment the event names
  select r.* into v_refund
  from public.refunds r join public.payments p on p.id = r.payment_id
  where (r.id = v_receipt or r.provider_refund_id = p_provider_refund_id)
    and p.provider = p_provider and p.provider_payment_id = p_provider_payment_id
  order by (r.id = v_receipt) desc nulls last
  limit 1;
  if not found then
    return jsonb_build_object('found', false, 'changed', false);
  end if;
  -- then locked: a retried event waits in the refund's queue, one wait each, bounded by the deadline
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
  end if;

  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this refund event could commit';
  end if;
  return jsonb_build_object(
    'found', true, 'changed', v_status <> v_refund.status, 'refundId', v_refund.id,
    'orderId', v_refund.order_id, 'status', v_status
  );
end;
$$;

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

revoke execute on function public.refund_claim_message(public.refunds) from public, anon, authenticated;
grant execute on function public.refund_claim_message(public.refunds) to service_role;
revoke execute on function public.claim_due_refunds(integer, integer, integer, integer)
  from public, anon, authenticated;
grant execute on function public.claim_due_refunds(integer, integer, integer, integer) to service_role;
revoke execute on function public.record_refund_result(uuid, uuid, text, text, text, boolean, integer)
  from public, anon, authenticated;
grant execute on function public.record_refund_result(uuid, uuid, text, text, text, boolean, integer)
  to service_role;
revoke execute on function public.record_refund_event(text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.record_refund_event(text, text, text, text, text, timestamptz)
  to service_role;
revoke execute on function public.failed_refunds(integer) from public, anon, authenticated;
grant execute on function public.failed_refunds(integer) to service_role;
