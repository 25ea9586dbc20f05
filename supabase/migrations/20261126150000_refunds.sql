-- Money goes back by itself (contract, "Payments through Razorpay: taking and giving back the money"), and the
-- ledger records how the buyer actually paid.
-- 1. payments.method: the payment's own method as the gateway reports it (Razorpay: card, upi, wallet,
--    netbanking, emi, ...; null when the report does not say), and payments.fee_shortfall: what the gateway's
--    fee for that method costs above the fee the order was priced with, in paise (Razorpay's upi and wallet
--    are those sub-methods, every other method takes the card rate); 0 when it costs no more, null when the
--    method is unknown or the order is not a gateway order. A payment by a dearer method still pays the
--    order: the right amount arrived.
-- 2. refunds: one row per payment whose money is due back, written in the transaction that made it due:
--    confirm_payment's duplicate_payment, order_cancelled, method_mismatch, amount_mismatch and
--    currency_mismatch (the last two were left for a person to review: their money now goes back too, and the
--    buyer pays again), and move_order_status's cancellation of an order a payment had paid, whoever cancels
--    it (the seller, the unpaid-order clock). A upi_direct order the seller had confirmed paid gets a
--    `manual` row when it is cancelled: the store returns that money itself. The drain's run issues the
--    `pending` rows through the gateway (claim_due_refunds, record_refund_result), the gateway's refund
--    events settle them (record_refund_event):
--      pending    due back, not yet issued at the gateway
--      issued     the gateway took it (provider_refund_id is its id); banks credit it in 5-7 working days
--      processed  the gateway reports it credited (refund.processed)
--      failed     the gateway reports it failed (refund.failed), or 10 attempts to issue it failed: a
--                 person returns the money (then marks it `manual`) or sets it `pending` again
--      manual     the store returns the money itself (upi_direct), or a person did
--    Rows of payments recorded before this migration whose money was due back (refund_due, and `paid`
--    payments of orders since cancelled) are written `manual`: until now a person refunded them by hand, and
--    the drain must not refund again what someone may have refunded already.
-- 3. The unpaid-order clock (cancel_unpaid_orders) counts only payments whose money is not due back: an
--    order whose only payments are refunded or due back is still unpaid (a ₹1 payment holds no stock).
-- 4. confirm_payment finds the order through the provider order start-payment kept (payment_provider_orders,
--    unique per provider order) when the payment's notes name none: a Checkout opened without notes still
--    decides through payment.captured.
--
-- THE LOCK ORDER (20261126000300_lock_order.sql). A refund row is written new (rank 7) by confirm_payment
-- and move_order_status, which hold the order's queue and row: no one else can hold it, and its unique
-- key (one per payment) is guarded by rank 1 and 2. An existing refund row is locked only by the refund
-- functions here (claim_due_refunds with SKIP LOCKED, record_refund_result by claim token,
-- record_refund_event), each in a transaction of its own that holds no lock of ranks 1-8 before it; after
-- it they write only new rows (rank 7; their foreign keys take a key-share lock on the order's row, which
-- a move holding that row never waits for a refund row to release). So a refund row comes after every
-- other rank, and no writer of ours waits for one while holding another lock.
--
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCT00 DEADLINE_EXCEEDED.

-- 1. The method actually used.
alter table public.payments
  add column method text check (method ~ '^[a-z][a-z0-9_]{0,39}$'),
  add column fee_shortfall bigint check (fee_shortfall >= 0);

-- The sub-method whose rate a gateway payment by p_method costs (Razorpay's names): upi and wallet are
-- their own, every other method the card's.
create or replace function public.gateway_rate_method(p_method text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case when p_method in ('upi', 'wallet') then p_method else 'card' end;
$$;

-- 2. Money due back: the wrong amount or currency now too. Existing rows of those outcomes become due
--    (on the payment's deciding row, as before) and get their `manual` refund row below.
alter table public.payments drop constraint payments_refund_due_outcome;
alter table public.payments add constraint payments_refund_due_outcome check (not refund_due or outcome in (
  'duplicate_payment', 'order_cancelled', 'method_mismatch', 'amount_mismatch', 'currency_mismatch'
));
update public.payments p set refund_due = true
where p.outcome in ('amount_mismatch', 'currency_mismatch') and p.amount > 0
  and not exists (
    select 1 from public.payments e
    where e.provider = p.provider and e.provider_payment_id = p.provider_payment_id and e.refund_due
  )
  and not exists (
    select 1 from public.payments e
    where e.provider = p.provider and e.provider_payment_id = p.provider_payment_id and e.order_id is not null
      and (e.received_at, e.id) < (p.received_at, p.id)
  );

create table public.refunds (
  id uuid primary key default public.uuid_v7(),
  -- the payment's deciding row in the ledger; null only for a `manual` refund of money the gateway never saw
  payment_id uuid references public.payments (id) on delete restrict,
  order_id uuid not null references public.orders (id) on delete restrict,
  amount numeric(14, 2) not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  status text not null default 'pending'
    check (status in ('pending', 'issued', 'processed', 'failed', 'manual')),
  provider_refund_id text check (provider_refund_id is null or public.is_one_line_text(provider_refund_id, 255)),
  -- attempts to issue it at the gateway, and the last one's error
  attempts integer not null default 0 check (attempts >= 0),
  last_error text check (length(last_error) <= 500),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- a drain's claim, as the outbox's: only its claimer records its result, and it lapses with its run
  claim_token uuid,
  claim_expires_at timestamptz,
  constraint refunds_through_the_gateway_or_manual check (payment_id is not null or status = 'manual'),
  constraint refunds_issued_have_their_id
    check (status not in ('issued', 'processed') or provider_refund_id is not null),
  constraint refunds_claimed_while_pending check (claim_token is null or status = 'pending')
);
-- one refund per payment (its deciding row stands for every event of it), one manual refund per order
create unique index refunds_one_per_payment on public.refunds (payment_id);
create unique index refunds_one_manual_per_order on public.refunds (order_id) where payment_id is null;
create unique index refunds_provider_refund on public.refunds (provider_refund_id)
  where provider_refund_id is not null;
create index refunds_order_id_idx on public.refunds (order_id);
create index refunds_due_idx on public.refunds (created_at) where status = 'pending';
create index refunds_failed_idx on public.refunds (updated_at) where status = 'failed';

-- Read by the service role (an operator's queries, the types); written only by the functions below.
alter table public.refunds enable row level security;
revoke all on public.refunds from anon, authenticated, service_role;
grant select on public.refunds to service_role;

-- What a refund is for never changes: the payment, the order, the amount and currency, its creation.
create or replace function public.keep_refund_facts()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is distinct from old.id or new.payment_id is distinct from old.payment_id
    or new.order_id is distinct from old.order_id or new.amount is distinct from old.amount
    or new.currency is distinct from old.currency or new.created_at is distinct from old.created_at then
    raise exception using errcode = 'OCM00',
      message = 'ORDER_IMMUTABLE: a refund''s payment, order, amount and currency never change';
  end if;
  new.updated_at := now();
  return new;
end;
$$;
create trigger refunds_keep_facts before update on public.refunds
  for each row execute function public.keep_refund_facts();
revoke execute on function public.keep_refund_facts() from public, anon, authenticated, service_role;

-- The money already due back, as it stood before this migration: a person refunded it (or will) by hand.
insert into public.refunds (payment_id, order_id, amount, currency, status, created_at)
select p.id, p.order_id, p.amount, p.currency, 'manual', p.received_at
from public.payments p
where p.refund_due and p.order_id is not null and p.amount > 0;
insert into public.refunds (payment_id, order_id, amount, currency, status, created_at)
select p.id, p.order_id, p.amount, p.currency, 'manual', h.changed_at
from public.payments p
join public.orders o on o.id = p.order_id and o.status = 'cancelled'
join lateral (
  select c.changed_at from public.order_status_history c
  where c.order_id = o.id and c.to_status = 'cancelled' order by c.id desc limit 1
) h on true
where p.outcome = 'paid' and p.amount > 0
on conflict (payment_id) do nothing;

-- The refund's answer in the functions' results: { refundId, amount (rupees), currency, status }.
create or replace function public.refund_answer(p_refund public.refunds)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object(
    'refundId', p_refund.id, 'amount', p_refund.amount, 'currency', p_refund.currency, 'status', p_refund.status
  );
$$;
revoke execute on function public.refund_answer(public.refunds) from public, anon, authenticated;
grant execute on function public.refund_answer(public.refunds) to service_role;
