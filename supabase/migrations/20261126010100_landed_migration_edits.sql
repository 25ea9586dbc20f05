-- Brings a database migrated while a landed migration still had its first version to the state of the later
-- version (tests/landed_migrations_test.ts lists the edits made to landed migrations and why each needs this
-- or not). Every check finds the later state on a database migrated since (and on every new one), and then
-- changes nothing: this migration only acts where the first version was applied.
--
-- 1. 20261122000200_orders.sql first made order numbers unique over all stores (orders_order_number_key), so
--    a second store's ORD-2026-000001 failed; its later version makes them unique per store
--    (orders_store_number_unique), as the numbering is. The unique index over all stores guarantees that
--    the per-store one can be built.
-- 2. 20261123000500_outbox_claim_tokens.sql first counted a row dead after 10 provider requests; its later
--    version adds email_outbox.failures (dead after 10 failed sends, failed rows retried less and less
--    often) and the three functions that use it, which later migrations made security definer. Failed rows
--    count one failure, as that version's own update did; the functions as that version wrote them, and as
--    they still are.
-- The other edits need nothing: their later versions were superseded by later migrations (the outbox index
-- and claim order, create_order's body), or schedule the same job (the outbox drain's schedule).

do $migration$
begin
  if exists (
    select 1 from pg_constraint where conrelid = 'public.orders'::regclass and conname = 'orders_order_number_key'
  ) then
    alter table public.orders drop constraint orders_order_number_key;
  end if;
  if not exists (
    select 1 from pg_constraint where conrelid = 'public.orders'::regclass and conname = 'orders_store_number_unique'
  ) then
    alter table public.orders add constraint orders_store_number_unique unique (store_id, order_number);
  end if;

  if not exists (
    select 1 from pg_attribute
    where attrelid = 'public.email_outbox'::regclass and attname = 'failures' and not attisdropped
  ) then
    alter table public.email_outbox add column failures integer not null default 0 check (failures >= 0);
    update public.email_outbox set failures = 1 where status = 'failed';
  end if;

  -- the functions exactly as 20261123000500 writes them (their text is their definition), not indented
  if position('failures' in pg_get_functiondef('public.claim_due_emails(integer, integer, integer)'::regprocedure)) = 0
  then
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
    alter function public.claim_due_emails(integer, integer, integer) security definer;
  end if;

  if position('failures' in pg_get_functiondef('public.record_email_results(jsonb)'::regprocedure)) = 0 then
create or replace function public.record_email_results(p_results jsonb)
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
    alter function public.record_email_results(jsonb) security definer;
  end if;

  if position('failures' in pg_get_functiondef('public.dead_emails(integer)'::regprocedure)) = 0 then
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
  end if;
end
$migration$;
