-- E-mails are read and superseded when they are sent, not when they are claimed (contract, "Under concurrency,
-- at scale, on a slow day": an e-mail never contradicts the order). A drain's claim read the order's status and
-- payment for up to 100 rows at once, and its run sent them up to its whole budget later (40 s at Resend's pace),
-- so an e-mail claimed while its order awaited payment went out after the order was paid, and then cancelled,
-- still saying "Awaiting payment" to the buyer and "Do not ship before the gateway has reported the payment" to
-- the seller. So:
-- 1. prepare_email_sends(p_claims, p_batch_key, p_deadline): the senders call it right before each request,
--    with the rows of that request ([{ id, claimToken }]). For each row still claimed under its token and
--    not held by another transaction (SKIP LOCKED: it never waits) it
--    - marks the row `superseded` (its claim ended) when its order's status now supersedes its kind
--      (email_superseded, as the claim does), and answers it in `superseded`;
--    - else, given p_batch_key (a new batch's key, `outbox/batch/<uuid>`), writes that key on a row no
--      request may have delivered (no batch yet, delivery_unknown false) before the request carries it, as a
--      claim of a new batch does, so the batch is only ever sent again whole under that key;
--    - and answers the row's message as the claim does, read now: an order's own e-mails from its rows as they
--      are (status, payments, refunds), every other e-mail's snapshot with the order's current status.
--    A row absent from both lists is no longer this sender's (its claim expired or ended) or another
--    transaction holds it at this moment: the sender sends it not.
-- 2. email_outbox_message (replaced from 20261126320000_dead_email_retries.sql): a snapshot's payload carries
--    the order's current status (`currentStatus`), so that the line of an e-mail about what comes next follows
--    where the order is when the e-mail goes, not where it was when the e-mail was written.
-- 3. order_email_data (replaced from 20261126150700_payment_emails.sql): the buyer's confirmation of an order
--    paid and then cancelled says so, with how the money goes back, so it also carries the gateway's payments
--    the ledger holds for the order (`recordedPayments`, as the status e-mails have them) and the order's
--    refunds (`refunds`: amount, currency, status).
--
-- SQLSTATEs: OCT00 DEADLINE_EXCEEDED (the deadline passed before the call started); 22023 a batch key that is
-- not `outbox/batch/<uuid>`.

-- 2. The message, a snapshot with the order's current status.
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

-- 3. The order's own e-mails from its rows as they are now, with its payments and refunds.
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

-- 1. The rows of one request, read right before it.
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

revoke execute on function public.email_outbox_message(public.email_outbox) from public, anon, authenticated;
grant execute on function public.email_outbox_message(public.email_outbox) to service_role;
revoke execute on function public.order_email_data(uuid) from public, anon, authenticated;
grant execute on function public.order_email_data(uuid) to service_role;
revoke execute on function public.prepare_email_sends(jsonb, text, timestamptz) from public, anon, authenticated;
grant execute on function public.prepare_email_sends(jsonb, text, timestamptz) to service_role;
