-- The e-mail outbox: each order's buyer and seller e-mails are written here in the order's own
-- transaction, so an e-mail exists as a fact before anyone tries to send it. Senders claim rows
-- atomically (for update skip locked), record the provider's answer, and leave failures with their
-- error for `deno task outbox` to retry. payload is a snapshot of what the templates need.

create table public.email_outbox (
  id uuid primary key default gen_random_uuid(),
  order_id uuid not null references public.orders (id) on delete cascade,
  kind text not null check (kind in ('buyer', 'seller')),
  to_email text not null,
  reply_to text,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'sending', 'sent', 'failed')),
  attempts integer not null default 0 check (attempts >= 0),
  last_error text,
  provider_id text,
  claimed_at timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint email_outbox_one_per_kind unique (order_id, kind),
  constraint email_outbox_sent_has_time check ((status = 'sent') = (sent_at is not null))
);
-- The drain looks only at unsent rows, least recently tried first; a partial index keeps that cheap
-- however many were sent.
create index email_outbox_unsent_idx on public.email_outbox ((coalesce(claimed_at, created_at)))
  where status <> 'sent';

create trigger email_outbox_touch_updated_at before update on public.email_outbox
  for each row execute function public.touch_updated_at();

alter table public.email_outbox enable row level security;
revoke all on public.email_outbox from anon, authenticated;
grant all on public.email_outbox to service_role;

-- The e-mails as a sender needs them: the row, the order number (allocated after the row was
-- written) and the payload.
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
    'payload', p_row.payload || jsonb_build_object('orderNumber', o.order_number)
  )
  from public.orders o
  where o.id = p_row.order_id;
$$;

-- Claims unsent rows for one sender: pending rows written, and failed rows last tried, at least
-- p_min_age_seconds ago, and rows stuck in 'sending' whose claim is older than p_stale_after_seconds
-- (their sender died). Resend's idempotency key makes a re-send of such a row harmless.
-- Due time and order go by the last try (claimed_at), not by created_at: a row that keeps failing
-- is not retried again within one drain run, and goes behind newer rows instead of blocking them.
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
    where e.status <> 'sent'
      and (
        (e.status in ('pending', 'failed')
          and coalesce(e.claimed_at, e.created_at) <= now() - make_interval(secs => p_min_age_seconds))
        or (e.status = 'sending'
          and e.claimed_at <= now() - make_interval(secs => p_stale_after_seconds))
      )
    order by coalesce(e.claimed_at, e.created_at), e.id
    limit p_limit
    for update skip locked
  ),
  claimed as (
    update public.email_outbox e
    set status = 'sending', claimed_at = now()
    from due
    where e.id = due.id
    returning e.*
  )
  select coalesce(jsonb_agg(public.email_outbox_message(c) order by c.created_at), '[]'::jsonb)
  from claimed c;
$$;

-- Records what the provider answered for each claimed row:
-- [{ "id": uuid, "attempts": n, "providerId": text } | { "id": uuid, "attempts": n, "error": text }]
create or replace function public.record_email_results(p_results jsonb)
returns integer
language sql
set search_path = ''
as $$
  with results as (
    select r.id, r.attempts, r."providerId" as provider_id, r.error
    from jsonb_to_recordset(p_results) as r(id uuid, attempts integer, "providerId" text, error text)
  ),
  updated as (
    update public.email_outbox e
    set
      status = case when r.provider_id is not null then 'sent' else 'failed' end,
      attempts = e.attempts + coalesce(r.attempts, 1),
      provider_id = coalesce(r.provider_id, e.provider_id),
      last_error = case when r.provider_id is not null then null else left(r.error, 2000) end,
      sent_at = case when r.provider_id is not null then now() end
    from results r
    where e.id = r.id and e.status <> 'sent'
    returning 1
  )
  select count(*)::integer from updated;
$$;

revoke execute on function public.email_outbox_message(public.email_outbox) from public, anon, authenticated;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;
revoke execute on function public.claim_due_emails(integer, integer, integer) from public, anon, authenticated;
grant execute on function public.claim_due_emails(integer, integer, integer) to service_role;
revoke execute on function public.record_email_results(jsonb) from public, anon, authenticated;
grant execute on function public.record_email_results(jsonb) to service_role;
