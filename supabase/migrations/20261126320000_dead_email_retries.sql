-- Dead e-mails can be sent again by an operator, safely (contract, "No e-mail is lost"). The only way was an
-- update by hand (`status = 'failed', failures = 0 where id = ...`), row by row: a dead batch's other rows
-- stayed dead, a mistyped id could reset a row some sender had claimed, and every key was kept for ever, though
-- Resend deduplicates under a key only 24 hours after the e-mail it sent.
-- 1. email_outbox.key_round: which key the row is sent under. 0: its own key `order/<orderId>/<kind>` (or its
--    batch's); n > 0: a key never used before, `<its own key>/retry/<n>` (the functions' mailer.ts writes it).
--    The message a sender gets carries it (`keyRound`).
-- 2. retry_dead_emails(p_ids, p_deadline): puts dead rows back to `pending` with a fresh count of failed sends
--    (10 more; `attempts` keeps counting every request), due at once. How it keeps each e-mail sent once:
--    - A row last tried less than 24 hours ago (its last failed send recorded then: `updated_at`, the dead
--      report's `lastTriedAt`) keeps its key and its batch, so a send whose answer was lost, which Resend holds
--      under that key, is answered without a second e-mail: its batch goes again whole (every dead row of a
--      batch named is retried with it) under the batch's key, a row alone under its own key.
--    - A row last tried 24 hours ago or more leaves its batch and gets a new key (key_round + 1), never used:
--      Resend no longer holds the old one, so the old key protects nothing any more and the e-mail is sent.
--    - Only `dead` rows move (locked without waiting: SKIP LOCKED); nothing claims a dead row, so no sender
--      holds one, and a second call finds nothing left to retry.
--
-- SQLSTATEs: OCT00 DEADLINE_EXCEEDED (the deadline passed before the call started).

-- 1. The key's round, and the message with it.
alter table public.email_outbox add column key_round integer not null default 0 check (key_round >= 0);

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
    'keyRound', p_row.key_round,
    'payload', case
      when p_row.payload is null then public.order_email_data(p_row.order_id)
      else p_row.payload || jsonb_build_object('orderNumber', o.order_number)
    end
  )
  from public.orders o
  where o.id = p_row.order_id;
$$;

-- 2. The operator's retry. p_ids: the dead rows to send again (null: every dead row); a row of a batch that
--    keeps its key brings the batch's other dead rows. Answers { retried: [{ id, orderId, kind, newKey }] },
--    newKey true where the row goes under a key never used before.
create or replace function public.retry_dead_emails(p_ids uuid[] default null, p_deadline timestamptz default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_retried jsonb;
begin
  perform public.start_deadline(p_deadline, 'retry of dead e-mails');
  with asked as (
    select e.id, e.batch_key, e.updated_at > now() - interval '24 hours' as keeps_key
    from public.email_outbox e
    where e.status = 'dead' and (p_ids is null or e.id = any(p_ids))
  ),
  -- a batch that keeps its key goes whole: its other dead rows come with it
  chosen as (
    select a.id, a.keeps_key from asked a
    union
    select e.id, true
    from public.email_outbox e
    join asked a on a.keeps_key and a.batch_key is not null and e.batch_key = a.batch_key
    where e.status = 'dead'
  ),
  locked as (
    select e.id, bool_and(c.keeps_key) as keeps_key
    from public.email_outbox e
    join chosen c on c.id = e.id
    where e.status = 'dead'
    group by e.id
  ),
  claimed as (
    select e.id from public.email_outbox e join locked l on l.id = e.id
    for update of e skip locked
  ),
  retried as (
    update public.email_outbox e
    set
      status = 'pending',
      failures = 0,
      -- due at once, first in line
      claimed_at = null,
      key_round = e.key_round + case when l.keeps_key then 0 else 1 end,
      -- a new key was never used: nothing under it may have been delivered, and it may join a new batch
      batch_key = case when l.keeps_key then e.batch_key end,
      delivery_unknown = l.keeps_key and e.delivery_unknown
    from locked l
    join claimed c on c.id = l.id
    where e.id = l.id and e.status = 'dead'
    returning e.id, e.order_id, e.kind, not l.keeps_key as new_key
  )
  select coalesce(jsonb_agg(jsonb_build_object(
    'id', r.id, 'orderId', r.order_id, 'kind', r.kind, 'newKey', r.new_key
  ) order by r.id), '[]'::jsonb)
  into v_retried
  from retried r;
  return jsonb_build_object('retried', v_retried);
end;
$$;

revoke execute on function public.email_outbox_message(public.email_outbox) from public, anon, authenticated;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;
revoke execute on function public.retry_dead_emails(uuid[], timestamptz) from public, anon, authenticated;
grant execute on function public.retry_dead_emails(uuid[], timestamptz) to service_role;
