-- The e-mail outbox: every e-mail is written here in the transaction of the fact it tells (an order, a move,
-- a payment, a refund), so an e-mail exists as a fact before anyone tries to send it. The request path
-- claims its own rows at once (create_order, the moves, confirm_payment: status `sending`, a claim token) and
-- sends them after answering; the drain (outbox-drain every minute on Supabase, `deno task outbox` locally)
-- claims what is due and records the provider's answers as they come.
--
-- Kinds: the buyer's confirmation and the seller's new-order alert of an order (`buyer`, `seller`: no
-- payload, rendered from the order's rows as they are when claimed, order_email_data: its current status,
-- the buyer's details as the order holds them now, the store's current name, and the method the gateway
-- payment that paid it was made by); the buyer's status e-mails (`status_paid`, `status_shipped`,
-- `status_delivered`, `status_cancelled`: one per order and status, with the move's own details as payload);
-- the seller's "payment received: ready to ship" (`seller_paid`, written when the gateway marks an order
-- paid, never when the seller did); and the buyer's refund e-mail (`refund`, once per refund, naming it in
-- refund_id, written when the gateway first holds the refund). One row per order, kind and refund (null
-- counted as one value).
--
-- - Claim tokens. Each claim of a row gives it a new random claim_token, handed to the claimer.
--   record_email_results records a result only for a row still 'sending' under that token whose claim has not
--   expired, so a slow sender whose claim went stale cannot overwrite a newer claimer's result.
-- - Claims that expire with their run. A drain's claim carries its expiry (claim_expires_at: the run's end,
--   its budget plus one send's timeout, p_claim_ms). Until then no other run takes the row; after it any run
--   may. Claims made by the request path carry none: they are due again p_stale_after_seconds after they
--   were made. Claims are serialized by the claim's queue, so that two runs never split one batch.
-- - Dead rows. A row whose 10th send has failed becomes 'dead': kept with its last error, never claimed again
--   automatically, listed by dead_emails() for the drain's report. `attempts` counts every request to the
--   provider, `failures` the sends that failed.
-- - Back-off. A failed row is due again p_min_age_seconds after its last send, doubled with each failure
--   (1, 2, 4 ... 256 minutes with the drain's default minute), so a provider outage of hours kills no e-mail.
-- - Batches that keep every e-mail sent once. Resend's batch endpoint sends up to 100 e-mails a request under
--   one idempotency key for the whole request, so two columns say what a row's earlier requests may have
--   done: delivery_unknown (some request carrying the row may have delivered it: its answer was lost, or its
--   claim expired with the outcome unknown) and batch_key (the batch the row was claimed into,
--   `outbox/batch/<uuid>`, given when the claim is made). A row no request may have delivered may join a new
--   batch; a row in a batch is only ever sent with that batch, whole, under its key; a batch refused for sure
--   (a 429, a 4xx), none of whose requests may have delivered, is dissolved; any other row that may have been
--   delivered is sent alone under its own key (`order/<orderId>/<kind>`), for ever. Rows of a batch move
--   together (claimed, recorded, dead together).
-- - Superseded e-mails. An e-mail that would ask someone to act on a state the order has left is not sent:
--   the claim marks it `superseded` (email_superseded), kept and never claimed again.
-- - Released rows. A claimer can hand back rows it claimed and never sent (the run's budget ended first, or
--   a 429: the provider's pace, not a failure of the e-mail): back to pending or failed, due at once, no
--   failure counted.
-- - The deadline. record_email_results never waits: it records the rows it can lock at once (SKIP LOCKED)
--   and leaves a row another transaction holds absent from its answer, like a refused result.
--   claim_due_emails waits for the one claimer before it through the claim's queue and for a batch's rows
--   one statement at a time in id order, every wait bounded by the time left; it rolls back rather than
--   commit a claim past its deadline. The outbox's rows are last in the lock order: a transaction holding
--   them takes nothing of ranks 1-8.
--
-- SQLSTATEs: OCT00 DEADLINE_EXCEEDED (the deadline passed before the call started, or a claim before commit);
-- 55P03 a claim's wait that reached the deadline; 22023 invalid limits (claim_due_emails).

create table public.email_outbox (
  id uuid primary key default public.uuid_v7(),
  order_id uuid not null references public.orders (id) on delete cascade,
  kind text not null,
  to_email text not null,
  reply_to text,
  -- what the e-mail says, as it was true when it was written; null for an order's `buyer` and `seller` rows
  payload jsonb,
  status text not null default 'pending',
  attempts integer not null default 0 check (attempts >= 0),
  last_error text,
  provider_id text,
  claimed_at timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  claim_token uuid,
  failures integer not null default 0 check (failures >= 0),
  refund_id uuid references public.refunds (id) on delete restrict,
  claim_expires_at timestamptz,
  batch_key text check (batch_key ~ '^outbox/batch/[0-9a-f-]{36}$'),
  delivery_unknown boolean not null default false,
  -- which key the row is sent under: 0 its own (or its batch's), n > 0 `<its own key>/retry/<n>`, never used
  key_round integer not null default 0 check (key_round >= 0),
  constraint email_outbox_sent_has_time check ((status = 'sent') = (sent_at is not null)),
  constraint email_outbox_status_check
    check (status in ('pending', 'sending', 'sent', 'failed', 'dead', 'superseded')),
  constraint email_outbox_sending_has_claim_token check ((status = 'sending') = (claim_token is not null)),
  constraint email_outbox_kind_check check (kind in (
    'buyer', 'seller', 'status_paid', 'status_shipped', 'status_delivered', 'status_cancelled', 'seller_paid',
    'refund'
  )),
  constraint email_outbox_status_emails_have_payload
    check (payload is not null or kind in ('buyer', 'seller')),
  constraint email_outbox_claim_expiry_only_when_sending
    check (claim_expires_at is null or status = 'sending'),
  constraint email_outbox_refund_names_its_refund check ((kind = 'refund') = (refund_id is not null)),
  constraint email_outbox_one_per_kind unique nulls not distinct (order_id, kind, refund_id)
);

-- the rows a claim may take
create index email_outbox_due_idx on public.email_outbox ((coalesce(claimed_at, created_at)))
  where status in ('pending', 'sending', 'failed');
-- a batch's rows, to claim them together
create index email_outbox_batch_idx on public.email_outbox (batch_key)
  where batch_key is not null and status in ('pending', 'sending', 'failed');

create trigger email_outbox_touch_updated_at before update on public.email_outbox
  for each row execute function public.touch_updated_at();

-- What must no longer be sent once the order has a status: the seller's new-order alert and "ready to ship",
-- and the buyer's `paid` e-mail, of an order since cancelled. A later kind that asks someone to act joins
-- the rule here.
create or replace function public.email_superseded(p_kind text, p_order_status public.order_status)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select p_order_status = 'cancelled' and p_kind in ('seller', 'status_paid', 'seller_paid');
$$;

revoke execute on function public.email_superseded(text, public.order_status)
  from public, anon, authenticated, service_role;
grant execute on function public.email_superseded(text, public.order_status) to service_role;

-- An order's `buyer` and `seller` e-mails from its rows as they are now: its number, amounts, currency,
-- payment method, items, current status, the buyer's contact details and address as the order holds them,
-- the store's current name and owner address, and the method the gateway payment that paid it was made by
-- (`paidWith`, only when one did and the gateway said how), the gateway's payments the ledger holds for it
-- (`recordedPayments`) and its refunds (`refunds`), so that the confirmation of an order paid and then
-- cancelled says so, with how the money goes back.
create or replace function public.order_email_data(p_order_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', o.currency,
    'status', o.status,
    'store', jsonb_build_object('name', s.name, 'ownerEmail', s.owner_email),
    'buyer', jsonb_build_object('email', o.buyer_email, 'name', o.buyer_name, 'phone', o.buyer_phone),
    'shippingAddress', o.shipping_address,
    'paymentMethod', o.payment_method, 'gatewayMethod', o.gateway_method,
    'paymentProofUrl', o.payment_proof_url,
    'items', (
      select coalesce(jsonb_agg(jsonb_build_object(
        'position', i.position, 'productId', i.product_id, 'variantId', i.variant_id,
        'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
        'unitPriceMinor', (i.unit_price * 100)::bigint, 'lineTotalMinor', (i.line_total * 100)::bigint
      ) order by i.position), '[]'::jsonb)
      from public.order_items i where i.order_id = o.id
    ),
    'totalMinor', (o.total_amount * 100)::bigint, 'feeMinor', (o.checkout_fee * 100)::bigint,
    'finalMinor', (o.final_amount * 100)::bigint,
    -- the gateway's payments the ledger holds for the order, each payment once (its events share its
    -- amount); the sum only when every one is in the order's currency
    'recordedPayments', (
      select jsonb_build_object(
        'count', count(*),
        'amountMinor', case when bool_and(p.currency = o.currency) then sum((p.amount * 100)::bigint) end
      )
      from (
        select distinct on (l.provider, l.provider_payment_id) l.amount, l.currency
        from public.payments l
        where l.order_id = o.id
        order by l.provider, l.provider_payment_id, l.received_at
      ) p
    ),
    'refunds', (
      select coalesce(jsonb_agg(jsonb_build_object(
        'amountMinor', (r.amount * 100)::bigint, 'currency', r.currency, 'status', r.status
      ) order by r.created_at, r.id), '[]'::jsonb)
      from public.refunds r where r.order_id = o.id
    )
  ) || coalesce((
    select jsonb_build_object('paidBy', h.actor) from public.order_status_history h
    where h.order_id = o.id and h.to_status = 'paid'
    order by h.id desc limit 1
  ), '{}'::jsonb) || coalesce((
    select jsonb_build_object('paidWith', p.method) from public.payments p
    where p.order_id = o.id and p.outcome = 'paid' and p.method is not null
  ), '{}'::jsonb)
  from public.orders o
  join public.stores s on s.id = o.store_id
  where o.id = p_order_id;
$$;

revoke execute on function public.order_email_data(uuid) from public, anon, authenticated, service_role;
grant execute on function public.order_email_data(uuid) to service_role;

-- The seller's "payment received" e-mail of the payment p_payment_id (SellerPaidEmailData in the functions'
-- _shared/email/payment_email_data.ts): the order, its buyer and address, its items, and the payment as the
-- ledger recorded it.
create or replace function public.seller_paid_email_data(p_payment_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', o.currency,
    'store', jsonb_build_object('name', s.name, 'ownerEmail', s.owner_email),
    'buyer', jsonb_build_object('email', o.buyer_email, 'name', o.buyer_name, 'phone', o.buyer_phone),
    'shippingAddress', o.shipping_address,
    'gatewayMethod', o.gateway_method,
    'payment', jsonb_build_object(
      'method', p.method, 'amountMinor', (p.amount * 100)::bigint,
      'feeShortfallMinor', coalesce(p.fee_shortfall, 0), 'paidAt', p.received_at
    ),
    'items', (
      select coalesce(jsonb_agg(jsonb_build_object(
        'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
        'unitPriceMinor', (i.unit_price * 100)::bigint, 'lineTotalMinor', (i.line_total * 100)::bigint
      ) order by i.position), '[]'::jsonb)
      from public.order_items i where i.order_id = o.id
    ),
    'totalMinor', (o.total_amount * 100)::bigint, 'feeMinor', (o.checkout_fee * 100)::bigint,
    'finalMinor', (o.final_amount * 100)::bigint
  )
  from public.payments p
  join public.orders o on o.id = p.order_id
  join public.stores s on s.id = o.store_id
  where p.id = p_payment_id;
$$;

revoke execute on function public.seller_paid_email_data(uuid) from public, anon, authenticated, service_role;
grant execute on function public.seller_paid_email_data(uuid) to service_role;

-- The e-mail as a sender needs it, with the batch it belongs to and the key round it is sent under; a
-- snapshot's payload carries the order's current status (`currentStatus`), so that what an e-mail says comes
-- next follows where the order is when the e-mail goes.
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
      else p_row.payload || jsonb_build_object('orderNumber', o.order_number, 'currentStatus', o.status)
    end
  )
  from public.orders o
  where o.id = p_row.order_id;
$$;

revoke execute on function public.email_outbox_message(public.email_outbox)
  from public, anon, authenticated, service_role;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;

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

revoke execute on function public.email_outbox_due(public.email_outbox, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.email_outbox_due(public.email_outbox, integer, integer) to service_role;

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

revoke execute on function public.claim_due_emails(integer, integer, integer, integer, integer, integer, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.claim_due_emails(integer, integer, integer, integer, integer, integer, timestamptz)
  to service_role;

-- Records what the provider answered, for rows still claimed under the token given whose claim has not
-- expired:
--   [{ "id", "claimToken", "attempts", "providerId"? }                  sent
--    | { "id", "claimToken", "attempts", "error", "maybeDelivered"? }   failed (dead at the 10th failure)
--    | { "id", "claimToken", "released": true, "attempts"? }]           never sent: back to pending/failed
-- providerId may be null: the provider answered that it had the message already under its key. A failed
-- result whose request may have delivered the row (maybeDelivered; absent: false) marks the row so; a batch
-- refused for sure whose rows no request may have delivered is dissolved. Returns the rows recorded with
-- their new status, [{ "id", "status" }]; a result missing from the answer was refused (its claim is no
-- longer current) or its row was held by another transaction.
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

revoke execute on function public.record_email_results(jsonb, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.record_email_results(jsonb, timestamptz) to service_role;

-- The dead rows, newest first (at most p_limit), and how many there are: for the drain's report. No address
-- or error text: the report travels to logs and cron's response table.
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

revoke execute on function public.dead_emails(integer) from public, anon, authenticated, service_role;
grant execute on function public.dead_emails(integer) to service_role;

-- The buyer's refund e-mail of a refund the gateway now holds (RefundEmailData); once per refund, whoever
-- records it first (the drain's result, or the gateway's event). The drain's record claims it (p_claim), and
-- its run sends it before its budget ends, as the run sends the cancelled e-mails of the orders it cancels;
-- an event's is pending for the next run. None for a `manual` refund: the store returns that money itself.
-- Returns the claimed messages ([] unless p_claim). Security definer (it writes the outbox), and no API
-- role's: record_refund_result and record_refund_event call it.
create or replace function public.queue_refund_email(p_refund_id uuid, p_claim boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_emails jsonb;
begin
  with inserted as (
    insert into public.email_outbox (
      order_id, kind, refund_id, to_email, reply_to, payload, status, claimed_at, claim_token
    )
    select o.id, 'refund', r.id, o.buyer_email, s.owner_email, jsonb_build_object(
      'orderId', o.id, 'orderNumber', o.order_number, 'createdAt', o.created_at, 'currency', r.currency,
      'store', jsonb_build_object('name', s.name, 'ownerEmail', s.owner_email),
      -- a payment that paid its order goes back because the order was cancelled since
      'reason', case when p.outcome = 'paid' then 'order_cancelled' else p.outcome end,
      'refund', jsonb_build_object(
        'refundId', r.id, 'amountMinor', (r.amount * 100)::bigint, 'method', p.method, 'issuedAt', now(),
        'providerRefundId', r.provider_refund_id
      )
    ),
    case when p_claim then 'sending' else 'pending' end,
    case when p_claim then now() end,
    case when p_claim then gen_random_uuid() end
    from public.refunds r
    join public.payments p on p.id = r.payment_id
    join public.orders o on o.id = r.order_id
    join public.stores s on s.id = o.store_id
    where r.id = p_refund_id and r.status <> 'manual' and r.provider_refund_id is not null
    on conflict (order_id, kind, refund_id) do nothing
    returning *
  )
  select coalesce(jsonb_agg(public.email_outbox_message(i)) filter (where p_claim), '[]'::jsonb)
  into v_emails
  from inserted i;
  return v_emails;
end;
$$;

revoke execute on function public.queue_refund_email(uuid, boolean)
  from public, anon, authenticated, service_role;

alter table public.email_outbox enable row level security;
revoke all on public.email_outbox from anon, authenticated, service_role;
grant select on public.email_outbox to service_role;

-- An operator's retry of dead e-mails, each still sent once: a row last tried less than 24 hours ago keeps its
-- key and its batch (its whole dead batch comes back with it), since Resend still answers a lost send under
-- that key; an older row leaves its batch and gets a key never used (key_round + 1). Only `dead` rows move.
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

revoke execute on function public.retry_dead_emails(uuid[], timestamptz) from public, anon, authenticated;
grant execute on function public.retry_dead_emails(uuid[], timestamptz) to service_role;

-- Right before each request to the provider: the request's rows still claimed under their tokens (SKIP LOCKED:
-- never waits), each either marked `superseded` when its order's status now supersedes its kind, or answered
-- with its message read now (and, given a new batch's key, that key written on rows no request may have
-- delivered). A row in neither list is no longer the sender's.
create or replace function public.prepare_email_sends(
  p_claims jsonb,
  p_batch_key text default null,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_ids uuid[];
  v_superseded jsonb;
  v_emails jsonb;
begin
  perform public.start_deadline(p_deadline, 'preparation of e-mail sends');
  if p_batch_key is not null and p_batch_key !~ '^outbox/batch/[0-9a-f-]{36}$' then
    raise exception 'prepare_email_sends: a batch key is outbox/batch/<uuid>' using errcode = '22023';
  end if;

  -- the rows still claimed under the tokens given, locked now or left: it never waits
  select coalesce(array_agg(e.id order by e.id), '{}') into v_ids
  from (
    select e.id
    from public.email_outbox e
    join jsonb_to_recordset(coalesce(p_claims, '[]'::jsonb)) as c(id uuid, "claimToken" uuid)
      on c.id = e.id and c."claimToken" = e.claim_token
    where e.status = 'sending' and (e.claim_expires_at is null or e.claim_expires_at > now())
    order by e.id
    for update of e skip locked
  ) e;

  -- superseded by the order as it is now (a cancelled order is never uncancelled: no later send revives it)
  with superseded as (
    update public.email_outbox e
    set status = 'superseded', claim_token = null, claim_expires_at = null
    from public.orders o
    where e.id = any(v_ids) and o.id = e.order_id and public.email_superseded(e.kind, o.status)
    returning e.id, e.order_id, e.kind
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'orderId', s.order_id, 'kind', s.kind)
    order by s.id), '[]'::jsonb)
  into v_superseded
  from superseded s;

  -- a new batch: its key on the rows before any request carries them
  if p_batch_key is not null then
    update public.email_outbox e
    set batch_key = p_batch_key
    where e.id = any(v_ids) and e.status = 'sending' and e.batch_key is null and not e.delivery_unknown;
  end if;

  select coalesce(jsonb_agg(public.email_outbox_message(e) order by e.id), '[]'::jsonb)
  into v_emails
  from public.email_outbox e
  where e.id = any(v_ids) and e.status = 'sending';
  return jsonb_build_object('emails', v_emails, 'superseded', v_superseded);
end;
$$;

revoke execute on function public.prepare_email_sends(jsonb, text, timestamptz) from public, anon, authenticated;
grant execute on function public.prepare_email_sends(jsonb, text, timestamptz) to service_role;
