-- A refund the gateway keeps refusing goes behind the refunds never tried. claim_due_refunds claimed the due
-- refunds oldest first, so the oldest ones, refused at every attempt, were claimed first by every run, and
-- a run that met three failures in a row stopped before the newer ones behind them (until the old ones
-- reached their tenth attempt). It now claims fewest attempts first, then oldest first: a refund never
-- tried comes before one that failed, and one that failed once before one that failed often. Replaced whole
-- from 20261126150400_refund_issuing.sql with only its order changed; the index of due refunds follows it.
-- Answers, SQLSTATEs and grants are unchanged.

drop index public.refunds_due_idx;
create index refunds_due_idx on public.refunds (attempts, created_at, id) where status = 'pending';

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
  from public, anon, authenticated;
grant execute on function public.claim_due_refunds(integer, integer, integer, integer) to service_role;
