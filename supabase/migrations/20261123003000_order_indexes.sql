-- Indexes by what reads them. Every index of a table is written with each of its rows, so each must serve
-- a query; these are checked against every query of the project (create_order, the moves, confirm_payment,
-- track-order's order_tracking, buyers' reads under row level security, the outbox, housekeeping, the
-- foreign keys' own checks, deno task orders).
--
-- Added:
-- - idempotency_keys (order_id): the foreign key to orders cascades on delete, and without an index each
--   deleted order scans every key.
-- - idempotency_keys (created_at): purge_expired_order_guards deletes the keys older than their retention;
--   without an index each purge scans the whole table.
--
-- Dropped, read by nothing:
-- - orders_buyer_email_idx (lower(buyer_email)): the rate limits count in order_rate_limits, tracking finds
--   an order by its id, a signed-in buyer's orders are found by buyer_user_id (orders_buyer_user_id_idx).
-- - orders_store_id_created_at_idx: no query lists a store's orders by date. Lookups by store go through
--   orders_store_number_unique (store_id, order_number), which also serves the check of the foreign key
--   from stores (a store with orders cannot be deleted); deno task orders lists the latest orders of all
--   stores, which this index never served.
-- - orders_store_year_sequence_unique: implied by orders_store_number_unique. An order's number is
--   format_order_number(order_year, order_sequence) (orders_number_matches_year_and_sequence), and that
--   format gives distinct numbers for distinct years and sequences (the year has 4 digits, the sequence
--   is padded to 6 and never cut), so one number per store is one (year, sequence) per store.

create index idempotency_keys_order_id_idx on public.idempotency_keys (order_id);
create index idempotency_keys_created_at_idx on public.idempotency_keys (created_at);

drop index public.orders_buyer_email_idx;
drop index public.orders_store_id_created_at_idx;
alter table public.orders drop constraint orders_store_year_sequence_unique;

-- An item is its order's line at a position: (order_id, position), already unique, becomes the primary key,
-- and the index of the old one, on order_items.id, goes. No query reads an item by its id (every reader
-- goes by order_id: order_tracking, move_order_status, the restock, the checks, buyers' reads); the column
-- stays, still filled with a random UUID by default, for whoever selected it.
alter table public.order_items drop constraint order_items_pkey;
alter table public.order_items drop constraint order_items_position_unique;
alter table public.order_items add constraint order_items_pkey primary key (order_id, position);
