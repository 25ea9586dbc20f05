import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import {
  callCreateOrder,
  callCreateOrderAsTheAdapter,
  createOrderPayload,
} from "./support/create_order_payload.ts";
import { sharedPostgres, testDatabases } from "./support/databases.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("anon reads the active catalogue but not a store's owner e-mail", async () => {
    const store = await createTestStore(db);
    const rows = await db.asRole("anon", (s) =>
      s.query<{ n: number }>(
        `select (select count(*)::int from public.products where store_id = $1) as n`,
        [store.storeId],
      ));
    assert.equal(rows[0].n, 3); // the inactive product is hidden
    await assert.rejects(
      db.asRole(
        "anon",
        (s) => s.query("select owner_email from public.stores where id = $1", [store.storeId]),
      ),
      (error: { code?: string }) => error.code === "42501",
    );
  });

  test("anon reads no order, authenticated none without a signed-in user, and neither executes create_order", async () => {
    const store = await createTestStore(db);
    await callCreateOrder(db, createOrderPayload(store));
    await assert.rejects(
      db.asRole("anon", (s) => s.query("select count(*) from public.orders")),
      (error: { code?: string }) => error.code === "42501",
    );
    // authenticated may read its own orders only (RLS): without a user's claims, that is none
    const [seen] = await db.asRole(
      "authenticated",
      (s) => s.query<{ n: number }>("select count(*)::int as n from public.orders"),
    );
    assert.equal(seen.n, 0);
    for (const role of ["anon", "authenticated"]) {
      await assert.rejects(
        db.asRole(
          role,
          (s) =>
            s.query("select public.create_order($1::text::jsonb)", [
              JSON.stringify(createOrderPayload(store)),
            ]),
        ),
        (error: { code?: string }) => error.code === "42501",
      );
    }
  });
}

const postgres = await sharedPostgres();
Deno.test({
  name:
    "[postgres] create_order() gives 50 concurrent orders of one store the numbers 1..50, retried as the adapter retries a busy store",
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const store = await createTestStore(postgres!);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => callCreateOrderAsTheAdapter(postgres!, createOrderPayload(store))),
    );
    const sequences = results.map((r) => Number(r.response.orderNumber.slice(-6))).sort((a, b) => a - b);
    assert.deepEqual(sequences, Array.from({ length: 50 }, (_, i) => i + 1));
  },
});
