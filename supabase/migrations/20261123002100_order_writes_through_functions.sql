-- Order data is written through the database's functions only, whoever holds the service key.
-- On Supabase, PostgREST serves every table of `public` to a caller with the service key under service_role's
-- grants: `POST /rest/v1/orders` could store an order with any amounts, `PATCH /rest/v1/payments` or
-- `/rest/v1/email_outbox` forge a payment or an e-mail, `DELETE /rest/v1/order_rate_limits` reset a limit,
-- all past create_order's checks. So:
-- 1. The functions that write run as their owner (security definer), with the empty search_path they already
--    set, so the tables need grant no write to any API role. Each stays executable by service_role alone;
--    move_order_status, the building block of update_order_status and confirm_payment, by no API role: a key
--    holder cannot move an order as the payment gateway.
-- 2. anon, authenticated and service_role keep no INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES or TRIGGER on
--    the order tables. Reading stays: service_role reads (reports, the outbox's tools), authenticated reads a
--    buyer's own orders under row level security (the buyer accounts migration).
-- 3. The status history names the API role a change was asked by: the functions now run as their owner, so
--    current_user there is the owner; the role PostgREST set for the request (`role`) is the caller.
-- The catalogue (stores, products, product_variants) stays writable by service_role: the seller keeps it with
-- the service key.

-- 1. Functions that write: security definer, executable by service_role only (grants restated: a function
--    keeps its grants through ALTER, and this file says in one place who may call each writer).
alter function public.create_order(jsonb) security definer;
alter function public.claim_due_emails(integer, integer, integer) security definer;
alter function public.record_email_results(jsonb) security definer;
alter function public.purge_expired_order_guards(integer, integer) security definer;
alter function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  security definer;
alter function public.confirm_payment(text, bigint, text, text, text, text, timestamptz) security definer;
alter function public.move_order_status(uuid, public.order_status, text, text, text, text, text)
  security definer;

revoke execute on function public.create_order(jsonb) from public, anon, authenticated;
grant execute on function public.create_order(jsonb) to service_role;
revoke execute on function public.claim_due_emails(integer, integer, integer) from public, anon, authenticated;
grant execute on function public.claim_due_emails(integer, integer, integer) to service_role;
revoke execute on function public.record_email_results(jsonb) from public, anon, authenticated;
grant execute on function public.record_email_results(jsonb) to service_role;
revoke execute on function public.purge_expired_order_guards(integer, integer) from public, anon, authenticated;
grant execute on function public.purge_expired_order_guards(integer, integer) to service_role;
revoke execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.update_order_status(text, uuid, uuid, text, text, text, text, text, timestamptz)
  to service_role;
revoke execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.confirm_payment(text, bigint, text, text, text, text, timestamptz)
  to service_role;
revoke execute on function public.move_order_status(uuid, public.order_status, text, text, text, text, text)
  from public, anon, authenticated, service_role;

-- 2. The order tables: read, never written, by the API roles.
revoke insert, update, delete, truncate, references, trigger on
  public.orders, public.order_items, public.order_status_history, public.order_counters, public.email_outbox,
  public.payments, public.idempotency_keys, public.order_rate_limits
  from anon, authenticated, service_role;
grant select on
  public.orders, public.order_items, public.order_status_history, public.order_counters, public.email_outbox,
  public.payments, public.idempotency_keys, public.order_rate_limits
  to service_role;

-- 3. Who asked for a status change: the request's role (`set role`, as PostgREST sets it), else the session's
--    user (plain SQL, the owner's own tools). A security definer function changes current_user, not `role`.
alter table public.order_status_history
  alter column changed_by set default coalesce(nullif(current_setting('role', true), 'none'), current_user);
