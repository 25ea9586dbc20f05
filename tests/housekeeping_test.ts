import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] purge_expired_order_guards() removes old idempotency keys and rate-limit windows only`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const store = await createTestStore(db);
      const keys = ["old", "day-old", "fresh"];
      for (const key of keys) {
        await callCreateOrder(
          db,
          createOrderPayload(store, { idempotency: { key, requestHash: "e".repeat(64) } }),
        );
      }
      await db.query(
        `update public.idempotency_keys set created_at = now() - case key
           when 'old' then interval '8 days' when 'day-old' then interval '23 hours' else interval '0' end
         where store_id = $1`,
        [store.storeId],
      );
      const bucket = `email:purge-${crypto.randomUUID()}@example.com`;
      await db.query(
        `insert into public.order_rate_limits (bucket, window_start, hits) values
           ($1, now() - interval '3 days', 5), ($1, now() - interval '1 hour', 2)`,
        [bucket],
      );

      // asking for 1 hour still keeps keys for the contract's 24 hours
      const [{ result }] = await db.asRole(
        "service_role",
        (s) => s.query<{ result: unknown }>("select public.purge_expired_order_guards(1, 48) as result"),
      );
      const counts = typeof result === "string" ? JSON.parse(result) : result;
      assert.ok(counts.idempotencyKeys >= 1 && counts.rateLimitWindows >= 1);
      const left = await db.query<{ key: string }>(
        "select key from public.idempotency_keys where store_id = $1 order by key",
        [store.storeId],
      );
      assert.deepEqual(left.map((row) => row.key), ["day-old", "fresh"]);
      const windows = await db.query<{ hits: number }>(
        "select hits from public.order_rate_limits where bucket = $1",
        [bucket],
      );
      assert.deepEqual(windows.map((row) => row.hits), [2]);
    },
  });

  Deno.test({
    name: `[${name}] purge_expired_order_guards() is refused to anon`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await assert.rejects(
        db.asRole("anon", (s) => s.query("select public.purge_expired_order_guards()")),
        (error: { code?: string }) => error.code === "42501",
      );
    },
  });
}
