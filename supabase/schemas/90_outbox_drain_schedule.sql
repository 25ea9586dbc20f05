-- Drains the outbox on Supabase by itself: every minute pg_cron runs a job that has pg_net POST `{}` to the
-- outbox-drain function, which cancels the orders nobody paid in time, issues the refunds due, sends what is
-- due, reports dead rows and purges expired idempotency keys and rate-limit windows. The project URL and the
-- key the job sends come from Vault at each run (secrets `project_url` and `outbox_drain_key`, a secret or
-- service-role key), so no key is written into the database's schema, and the job does nothing until both
-- are stored.
-- Only where pg_cron and pg_net exist (Supabase, hosted or `supabase start`). On plain PostgreSQL and on
-- PGlite (the local stack and the tests) the two functions below exist and nothing is scheduled:
-- `deno task outbox` is the local drain.
--
-- The schedule itself is a row of pg_cron's (cron.job), not schema: the migration
-- 20261123000700_outbox_drain_schedule.sql made it by calling schedule_outbox_drain(), and calling it again
-- reschedules it. db:diff carries no rows: a migration that changes the job calls the function itself.

-- The SQL the cron job runs, as text: one function, so a test can read and run what the job would run.
create or replace function public.outbox_drain_job_command()
returns text
language sql
immutable
set search_path = ''
as $fn$
  select $job$select net.http_post(
  url := rtrim(s.project_url, '/') || '/functions/v1/outbox-drain',
  headers := jsonb_build_object(
    'Content-Type', 'application/json',
    'apikey', s.drain_key,
    'Authorization', 'Bearer ' || s.drain_key
  ),
  body := '{}'::jsonb,
  timeout_milliseconds := 55000
) as request_id
from (
  select
    (select decrypted_secret from vault.decrypted_secrets where name = 'project_url') as project_url,
    (select decrypted_secret from vault.decrypted_secrets where name = 'outbox_drain_key') as drain_key
) s
where s.project_url is not null and s.drain_key is not null$job$;
$fn$;

revoke execute on function public.outbox_drain_job_command() from public, anon, authenticated, service_role;

-- Schedules (or reschedules: pg_cron replaces a job of the same name) the job every minute, when pg_cron,
-- pg_net and Vault are there; says which it did.
create or replace function public.schedule_outbox_drain()
returns text
language plpgsql
set search_path = ''
as $fn$
begin
  if to_regprocedure('cron.schedule(text, text, text)') is null
    or to_regprocedure('net.http_post(text, jsonb, jsonb, jsonb, integer)') is null
    or to_regclass('vault.decrypted_secrets') is null then
    return 'not scheduled: pg_cron, pg_net or Vault is not installed';
  end if;
  -- dynamic: the cron schema exists only where pg_cron does, and this function is created everywhere.
  -- The checker cannot see through dynamic SQL and would call a job scheduler STABLE:
  -- @plpgsql_check_options: performance_warnings = false
  execute format('select cron.schedule(%L, %L, %L)', 'outbox-drain', '* * * * *', public.outbox_drain_job_command());
  return 'scheduled: outbox-drain every minute';
end;
$fn$;

revoke execute on function public.schedule_outbox_drain() from public, anon, authenticated, service_role;

-- Supabase ships both extensions, not enabled: enable them where they are available. A server that lists
-- pg_cron without loading it (shared_preload_libraries) refuses; then nothing is scheduled.
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron')
    and exists (select 1 from pg_available_extensions where name = 'pg_net') then
    create extension if not exists pg_cron;
    create extension if not exists pg_net with schema extensions;
  end if;
exception when others then
  raise notice 'outbox drain: pg_cron or pg_net could not be enabled (%): nothing scheduled', sqlerrm;
end
$$;
