-- The order's guards that outlive it for a while: idempotency keys and rate-limit windows.
--
-- Idempotency keys (IETF draft "The Idempotency-Key HTTP Header Field"), scoped to a store. A row is written
-- in the order's own transaction, so a key is bound to an order exactly when the order exists; a request
-- that fails writes no key and may be retried with it.
--
-- Order rate limits per client IP and per buyer e-mail: the public key is public, so anyone could create
-- orders and make us e-mail any address. Counters per fixed window live here and are bumped inside
-- create_order, in the order's transaction: an order that fails (or is refused) rolls its count back, so
-- only stored orders count. Limits and windows come from the function's configuration with each call. A
-- bucket is shared by every store (lock order: rank 8, behind its queue). begin_payment counts the payment
-- steps per IP here too (50_payments.sql).
--
-- Housekeeping: both are only needed for a while, and without a purge both tables grow with every order.
-- The outbox drain (outbox-drain, `deno task outbox`) calls purge_expired_order_guards on each run.

create table public.idempotency_keys (
  store_id uuid not null references public.stores (id) on delete cascade,
  key text not null check (length(key) between 1 and 255),
  -- SHA-256 of the request body, hex: the same key with another body is refused
  request_hash text not null check (request_hash ~ '^[0-9a-f]{64}$'),
  order_id uuid not null references public.orders (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (store_id, key)
);

-- the foreign key to orders cascades on delete: without an index each deleted order scans every key
create index idempotency_keys_order_id_idx on public.idempotency_keys (order_id);
-- the purge deletes the keys older than their retention
create index idempotency_keys_created_at_idx on public.idempotency_keys (created_at);

create table public.order_rate_limits (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null check (hits > 0),
  primary key (bucket, window_start)
);

create index order_rate_limits_window_start_idx on public.order_rate_limits (window_start);

-- Deletes the idempotency keys and rate-limit windows past their retention; idempotency keys are kept at
-- least 24 hours whatever the caller asks (the contract's promise).
create or replace function public.purge_expired_order_guards(
  p_idempotency_hours integer default 168,
  p_rate_limit_hours integer default 48
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_keys integer;
  v_windows integer;
begin
  delete from public.idempotency_keys
  where created_at < now() - make_interval(hours => greatest(p_idempotency_hours, 24));
  get diagnostics v_keys = row_count;
  -- a window is kept this long after it started: longer than any window the limits are configured with
  delete from public.order_rate_limits
  where window_start < now() - make_interval(hours => greatest(p_rate_limit_hours, 1));
  get diagnostics v_windows = row_count;
  return jsonb_build_object('idempotencyKeys', v_keys, 'rateLimitWindows', v_windows);
end;
$$;

revoke execute on function public.purge_expired_order_guards(integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.purge_expired_order_guards(integer, integer) to service_role;

alter table public.idempotency_keys enable row level security;
alter table public.order_rate_limits enable row level security;

-- No policies: the API roles read nothing here but service_role, which bypasses row level security.
revoke all on public.idempotency_keys, public.order_rate_limits from anon, authenticated, service_role;
grant select on public.idempotency_keys, public.order_rate_limits to service_role;
