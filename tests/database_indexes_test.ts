/**
 * The indexes of the tables every order writes, each with the query that reads it: an index is written
 * with every row, so one that nothing reads is a cost of every order for nothing (see the order indexes
 * migration). A new index belongs here with its reader.
 */
import assert from "node:assert/strict";
import { testDatabases } from "./support/databases.ts";

/** Index name → its definition after `USING`, and (in the comment) what reads it. */
const ORDER_INDEXES: Record<string, Record<string, string>> = {
  orders: {
    // every lookup of an order by id; the foreign keys to orders
    orders_pkey: "btree (id)",
    // update_order_status by store and number; no duplicate number; the foreign key from stores
    orders_store_number_unique: "btree (store_id, order_number)",
    // a signed-in buyer's orders under row level security, newest first
    orders_buyer_user_id_idx: "btree (buyer_user_id, created_at DESC) WHERE (buyer_user_id IS NOT NULL)",
    // cancel_unpaid_orders: the orders still awaiting payment, oldest first (the drain's run, every minute)
    orders_payment_pending_created_at_idx:
      "btree (created_at) WHERE (status = 'payment_pending'::order_status)",
  },
  order_items: {
    // an order's items (tracking, status e-mails, restock, the checks, buyers' reads)
    order_items_pkey: 'btree (order_id, "position")',
    // the foreign keys from products and from (product, variant): a delete of either must not scan every item
    // sold; one index for both, so an order dirties one leaf of it, not two
    order_items_product_id_variant_id_idx: "btree (product_id, variant_id)",
  },
  order_status_history: {
    order_status_history_pkey: "btree (id)",
    // an order's history in order (tracking, the first status of order_response)
    order_status_history_order_id_idx: "btree (order_id, id)",
  },
  email_outbox: {
    // record_email_results and claims by row id
    email_outbox_pkey: "btree (id)",
    // one e-mail per order and kind, and per refund for refund e-mails (status e-mails: on conflict do nothing)
    email_outbox_one_per_kind: "btree (order_id, kind, refund_id) NULLS NOT DISTINCT",
    // claim_due_emails: the rows a drain may claim, least recently tried first
    email_outbox_due_idx:
      "btree (COALESCE(claimed_at, created_at)) WHERE (status = ANY (ARRAY['pending'::text, 'sending'::text, 'failed'::text]))",
    // claim_due_emails: a batch's rows, claimed together
    email_outbox_batch_idx:
      "btree (batch_key) WHERE ((batch_key IS NOT NULL) AND (status = ANY (ARRAY['pending'::text, 'sending'::text, 'failed'::text])))",
  },
  idempotency_keys: {
    // create_order's lookup of a key
    idempotency_keys_pkey: "btree (store_id, key)",
    // the cascade of the foreign key to orders
    idempotency_keys_order_id_idx: "btree (order_id)",
    // purge_expired_order_guards
    idempotency_keys_created_at_idx: "btree (created_at)",
  },
  order_counters: {
    // create_order's number
    order_counters_pkey: "btree (store_id, year)",
  },
};

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] the tables every order writes have exactly the indexes some query reads`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const rows = await db.query<{ table: string; index: string; definition: string }>(
        `select tablename::text as table, indexname::text as index, split_part(indexdef, ' USING ', 2) as definition
         from pg_indexes where schemaname = 'public' and tablename = any($1::text[]) order by 1, 2`,
        [Object.keys(ORDER_INDEXES)],
      );
      const found: Record<string, Record<string, string>> = {};
      for (const row of rows) (found[row.table] ??= {})[row.index] = row.definition;
      assert.deepEqual(found, ORDER_INDEXES);
    },
  });
}
