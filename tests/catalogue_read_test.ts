/**
 * What the example storefront's anon key can read through the local PostgREST read route, under RLS: the
 * active catalogue of active stores, and nothing else (no inactive product or variant, no closed store's
 * products, no seller address, no order data).
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";

const PRIVATE_TABLES = [
  "orders",
  "order_items",
  "order_counters",
  "order_status_history",
  "email_outbox",
  "idempotency_keys",
  "order_rate_limits",
  "payments",
  "payment_provider_orders",
];

const _ids = (rows: { id: string }[] | null) => (rows ?? []).map((row) => row.id).sort();

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] anon reads exactly the active catalogue of open stores through GET /rest/v1/<table>, and no order data`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const open = await createTestStore(db);
      const closed = await createTestStore(db, { active: false });
      const stack = await startTestStack({ db });
      try {
        // an order, so that every private table has a row a leaking read would show
        assert.equal((await stack.post(orderBody(open))).status, 200);
        await stack.settled();
        const anon = createClient(stack.url, stack.anonKey, { auth: { persistSession: false } });

        await t.step(
          "products, variants and stores: the active ones of open stores, all of them",
          async () => {
            const expected = async (sql: string) => _ids(await db.query<{ id: string }>(sql));
            const products = await anon.from("products").select("id");
            assert.deepEqual(
              _ids(products.data),
              await expected(`select p.id from public.products p join public.stores s on s.id = p.store_id
              where p.is_active and s.is_active`),
            );
            const variants = await anon.from("product_variants").select("id");
            assert.deepEqual(
              _ids(variants.data),
              await expected(
                `select v.id from public.product_variants v join public.products p on p.id = v.product_id
              join public.stores s on s.id = p.store_id where v.is_active and p.is_active and s.is_active`,
              ),
            );
            const stores = await anon.from("stores").select("id,name,currency");
            assert.deepEqual(
              _ids(stores.data),
              await expected("select id from public.stores where is_active"),
            );
          },
        );

        await t.step(
          "the storefront's own reads: the open store's three products, nothing of the closed one",
          async () => {
            const shown = await anon.from("products").select("id").eq("store_id", open.storeId);
            assert.deepEqual(_ids(shown.data), open.products.map((p) => p.id).sort());
            const hidden = await anon.from("products").select("id").eq("store_id", closed.storeId);
            assert.deepEqual(hidden.data, []);
            const retired = await anon.from("product_variants").select("id").eq("id", open.inactiveVariantId);
            assert.deepEqual(retired.data, []);
            const closedStore = await anon.from("stores").select("id").eq("id", closed.storeId);
            assert.deepEqual(closedStore.data, []);
            const owner = await anon.from("stores").select("owner_email").eq("id", open.storeId);
            assert.equal(owner.error?.code, "42501");
          },
        );

        for (const table of PRIVATE_TABLES) {
          await t.step(`${table}: nothing`, async () => {
            const read = await anon.from(table).select("*");
            assert.ok(read.error?.code === "42501" || (read.data ?? []).length === 0, JSON.stringify(read));
          });
        }
      } finally {
        await stack.close();
      }
    },
  });
}
