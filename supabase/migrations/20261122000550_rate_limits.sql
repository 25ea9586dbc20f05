-- Order rate limits per client IP and per buyer e-mail: the public key is public, so anyone could
-- create orders and make us e-mail any address. Counters per fixed window live here and are bumped by
-- one statement inside create_order, in the order's transaction: an order that fails (or is refused)
-- rolls its count back, so only stored orders count. Limits and windows come from the function's
-- configuration with each call.

create table public.order_rate_limits (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null check (hits > 0),
  primary key (bucket, window_start)
);
create index order_rate_limits_window_start_idx on public.order_rate_limits (window_start);

alter table public.order_rate_limits enable row level security;
revoke all on public.order_rate_limits from anon, authenticated;
grant all on public.order_rate_limits to service_role;
