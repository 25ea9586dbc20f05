-- A signed-in buyer's read of their items and history goes through an index, whatever the number of orders
-- (contract, "Under concurrency, at scale, on a slow day": a buyer's read scales).
--
-- The policies of 20261123001500_buyer_accounts.sql were an `exists (select 1 from orders o where o.id =
-- order_id and o.buyer_user_id = (select auth.uid()))` per row. Under row level security PostgreSQL does not
-- turn that into a join: it ran as a filter on a sequential scan of every item and every history row in the
-- database (at 101,908 orders, 199,616 items read, 5,336 buffers, 0.8-1.7 s for a buyer's 18 items). Written
-- as `order_id = any (array(select ...))`, the buyer's order ids are one init plan (the buyer's orders through
-- orders_buyer_user_id_idx, itself under the orders policy) computed once per statement, and the rows are found
-- by order id through order_items_pkey (order_id, position) and order_status_history_order_id_idx (order_id,
-- id): a few buffers per order of the buyer (tests/buyer_reads_at_scale_test.ts, at 100,000 orders).
-- auth.uid() stays wrapped in a select (once per statement; Supabase's advisor lint 0003).
--
-- The orders policy, `buyer_user_id = (select auth.uid())`, already reads through orders_buyer_user_id_idx.
-- Who may read which row is unchanged: the rows of the orders whose buyer_user_id is the caller's.

alter policy order_items_buyer_read on public.order_items
  using (order_id = any (array(
    select o.id from public.orders o where o.buyer_user_id = (select auth.uid())
  )));

alter policy order_status_history_buyer_read on public.order_status_history
  using (order_id = any (array(
    select o.id from public.orders o where o.buyer_user_id = (select auth.uid())
  )));
