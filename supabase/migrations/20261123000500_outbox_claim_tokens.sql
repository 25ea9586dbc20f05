-- The outbox on a real deployment, where a cron job drains it every minute while request-path senders
-- still record their own results: claim tokens, dead rows, and failed rows retried less and less often.
-- - Claim tokens. Each claim of a row (by create_order, or by claim_due_emails for a drain) gives it a new
--   random claim_token, handed to the claimer. record_email_results records a result only for a row still
--   'sending' under that token, so a sender that was slow enough for its claim to go stale (another drain
--   has since claimed, maybe sent, the row) cannot overwrite the newer claimer's result with its late one.
-- - Dead rows. A row whose 10th send has failed becomes 'dead': kept with its last error, never claimed again
--   automatically, listed by dead_emails() for the drain's report. A send is one claim's delivery attempt
--   (the sender's own quick retries included: `attempts` still counts every request to the provider), and
--   `failures` counts the sends that failed.
-- - Back-off. A failed row is due again p_min_age_seconds after its last send, doubled with each failure
--   (1, 2, 4 ... 256 minutes with the drain's default minute), so a provider outage of hours kills no e-mail:
--   the 10th failure comes about 8.5 hours after the first.

alter table public.email_outbox add column claim_token uuid;
alter table public.email_outbox add column failures integer not null default 0 check (failures >= 0);
-- rows that failed before this migration keep a count of at least one failure
update public.email_outbox set failures = 1 where status = 'failed';

-- a row claimed before this migration (a deployment with sends under way) gets a token of its own: its
-- sender's late result is then ignored and the drain sends it again once the claim is stale
update public.email_outbox set claim_token = gen_random_uuid() where status = 'sending';

alter table public.email_outbox drop constraint email_outbox_status_check;
alter table public.email_outbox add constraint email_outbox_status_check
  check (status in ('pending', 'sending', 'sent', 'failed', 'dead'));
alter table public.email_outbox add constraint email_outbox_sending_has_claim_token
  check ((status = 'sending') = (claim_token is not null));

-- The drain's index holds only rows it may claim: dead rows leave it as sent rows do.
drop index public.email_outbox_unsent_idx;
create index email_outbox_due_idx on public.email_outbox ((coalesce(claimed_at, created_at)))
  where status in ('pending', 'sending', 'failed');

-- The e-mail as a sender needs it, now with the claim token its result must carry.
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
    'payload', p_row.payload || jsonb_build_object('orderNumber', o.order_number)
  )
  from public.orders o
  where o.id = p_row.order_id;
$$;

-- As before (pending rows due p_min_age_seconds after they were written, 'sending' rows whose claim is older
-- than p_stale_after_seconds), failed rows due p_min_age_seconds × 2^(failures - 1) after their last send
-- (at most × 256), never a dead row, and each claimed row with a new claim token.
create or replace function public.claim_due_emails(
  p_limit integer default 100,
  p_min_age_seconds integer default 60,
  p_stale_after_seconds integer default 300
)
returns jsonb
language sql
set search_path = ''
as $$
  with due as (
    select e.id
    from public.email_outbox e
    where e.status in ('pending', 'sending', 'failed')
      and (
        (e.status = 'pending'
          and coalesce(e.claimed_at, e.created_at) <= now() - make_interval(secs => p_min_age_seconds))
        or (e.status = 'failed'
          and coalesce(e.claimed_at, e.created_at)
            <= now() - make_interval(secs => p_min_age_seconds * power(2, least(greatest(e.failures, 1), 9) - 1)))
        or (e.status = 'sending'
          and e.claimed_at <= now() - make_interval(secs => p_stale_after_seconds))
      )
    order by coalesce(e.claimed_at, e.created_at), e.id
    limit p_limit
    for update skip locked
  ),
  claimed as (
    update public.email_outbox e
    set status = 'sending', claimed_at = now(), claim_token = gen_random_uuid()
    from due
    where e.id = due.id
    returning e.*
  )
  select coalesce(jsonb_agg(public.email_outbox_message(c) order by c.created_at), '[]'::jsonb)
  from claimed c;
$$;

-- Records what the provider answered, for rows still claimed under the token given:
--   [{ "id": uuid, "claimToken": uuid, "attempts": n, "providerId": text }
--    | { "id": uuid, "claimToken": uuid, "attempts": n, "error": text }]
-- A failed result is one more of the row's failures, and its 10th makes the row 'dead'. Returns the rows it
-- recorded with their new status, [{ "id", "status" }]; a result missing from the answer was ignored (its claim
-- is no longer current).
-- The return type changed from integer, hence drop and create.
drop function public.record_email_results(jsonb);
create function public.record_email_results(p_results jsonb)
returns jsonb
language sql
set search_path = ''
as $$
  with results as (
    select r.id, r."claimToken" as claim_token, r.attempts, r."providerId" as provider_id, r.error
    from jsonb_to_recordset(p_results)
      as r(id uuid, "claimToken" uuid, attempts integer, "providerId" text, error text)
  ),
  updated as (
    update public.email_outbox e
    set
      status = case
        when r.provider_id is not null then 'sent'
        when e.failures + 1 >= 10 then 'dead'
        else 'failed'
      end,
      attempts = e.attempts + greatest(coalesce(r.attempts, 1), 1),
      failures = e.failures + case when r.provider_id is null then 1 else 0 end,
      provider_id = coalesce(r.provider_id, e.provider_id),
      last_error = case when r.provider_id is not null then null else left(r.error, 2000) end,
      sent_at = case when r.provider_id is not null then now() end,
      claim_token = null
    from results r
    where e.id = r.id and e.status = 'sending' and e.claim_token = r.claim_token
    returning e.id, e.status
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'status', u.status) order by u.id), '[]'::jsonb)
  from updated u;
$$;

-- The dead rows, newest first (at most p_limit), and how many there are: for the drain's report. No
-- address or error text: the report travels to logs and cron's response table.
create or replace function public.dead_emails(p_limit integer default 20)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'total', (select count(*) from public.email_outbox where status = 'dead'),
    'emails', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', d.id, 'orderId', d.order_id, 'kind', d.kind, 'failures', d.failures, 'attempts', d.attempts,
        'lastTriedAt', d.updated_at
      ) order by d.updated_at desc, d.id)
      from (
        select e.id, e.order_id, e.kind, e.failures, e.attempts, e.updated_at
        from public.email_outbox e
        where e.status = 'dead'
        order by e.updated_at desc, e.id
        limit greatest(p_limit, 0)
      ) d
    ), '[]'::jsonb)
  );
$$;

revoke execute on function public.email_outbox_message(public.email_outbox) from public, anon, authenticated;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;
revoke execute on function public.claim_due_emails(integer, integer, integer) from public, anon, authenticated;
grant execute on function public.claim_due_emails(integer, integer, integer) to service_role;
revoke execute on function public.record_email_results(jsonb) from public, anon, authenticated;
grant execute on function public.record_email_results(jsonb) to service_role;
revoke execute on function public.dead_emails(integer) from public, anon, authenticated;
grant execute on function public.dead_emails(integer) to service_role;
