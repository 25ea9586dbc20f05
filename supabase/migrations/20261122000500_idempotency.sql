-- Idempotency keys (IETF draft "The Idempotency-Key HTTP Header Field"), scoped to a store.
-- A row is written in the order's own transaction, so a key is bound to an order exactly when the
-- order exists; a request that fails writes no key and may be retried with it. Keys are kept
-- (at least the 24 hours the contract promises; nothing deletes them yet).

create table public.idempotency_keys (
  store_id uuid not null references public.stores (id) on delete cascade,
  key text not null check (length(key) between 1 and 255),
  -- SHA-256 of the request body, hex: the same key with another body is refused
  request_hash text not null check (request_hash ~ '^[0-9a-f]{64}$'),
  order_id uuid not null references public.orders (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (store_id, key)
);

alter table public.idempotency_keys enable row level security;
revoke all on public.idempotency_keys from anon, authenticated;
grant all on public.idempotency_keys to service_role;
