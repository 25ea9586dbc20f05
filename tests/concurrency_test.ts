/**
 * Concurrency on PostgreSQL (issue 6, part 3): order numbers under load, one Idempotency-Key raced by
 * twenty requests, and status updates racing each other against the lifecycle; and the same key's race on
 * PGlite, whose one connection runs the requests one after another.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite, sharedPostgres } from "./support/databases.ts";
import { ALLOWED_STATUS_MOVES } from "./support/lifecycle.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { countStoreRows } from "./support/store_rows.ts";

const pg = await sharedPostgres();
const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };
// a history starts with the order's creation (from null), then takes only the lifecycle's moves
const ALLOWED_MOVES = new Set(["null>payment_pending", ...ALLOWED_STATUS_MOVES]);

Deno.test({
  name:
    "[postgres] POST create-order numbers 200 concurrent orders over 5 stores uniquely and without gaps per store",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const stores = await Promise.all(Array.from({ length: 5 }, () => createTestStore(db)));
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const results = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
        const res = await stack.post(orderBody(stores[i % 5], { buyerEmail: `buyer${i}@example.com` }));
        return { status: res.status, body: await res.json(), store: i % 5 };
      }));
      assert.deepEqual(results.filter((r) => r.status !== 200), []);
      const year = new Date().getUTCFullYear();
      for (const [index, store] of stores.entries()) {
        const numbers = results.filter((r) => r.store === index).map((r) => r.body.orderNumber).sort();
        const expected = Array.from(
          { length: 40 },
          (_, n) => `ORD-${year}-${String(n + 1).padStart(6, "0")}`,
        );
        assert.deepEqual(numbers, expected);
        const rows = await countStoreRows(db, store.storeId);
        assert.equal(rows.orders, 40);
        assert.equal(rows.counter, 40);
        assert.equal(rows.emails, 80);
      }
      await stack.settled();
      assert.equal(stack.mail.sent.length, 400);
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[postgres] POST create-order makes one order and one pair of e-mails of 20 concurrent requests with one Idempotency-Key",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const headers = { "Idempotency-Key": `race-${crypto.randomUUID()}` };
      const body = orderBody(store);
      const results = await Promise.all(Array.from({ length: 20 }, async () => {
        const res = await stack.post(body, headers);
        return { status: res.status, body: await res.json() };
      }));
      assert.deepEqual(results.filter((r) => r.status !== 200 && r.status !== 409), []);
      for (const r of results.filter((r) => r.status === 409)) {
        assert.equal(r.body.error.code, "IDEMPOTENCY_KEY_IN_USE");
      }
      const orderIds = new Set(results.filter((r) => r.status === 200).map((r) => r.body.orderId));
      assert.equal(orderIds.size, 1);
      const [orderId] = orderIds;

      const replay = await stack.post(body, headers);
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get("Idempotent-Replayed"), "true");
      assert.equal((await replay.json()).orderId, orderId);
      assert.equal((await countStoreRows(db, store.storeId)).orders, 1);
      await stack.settled();
      assert.deepEqual(
        stack.mail.sent.map((m) => m.idempotencyKey).sort(),
        [`order/${orderId}/buyer`, `order/${orderId}/seller`],
      );
    } finally {
      await stack.close();
    }
  },
});

// docs/develop.md's note on PGlite (The local loop): a double click tried against `deno task dev` sees replays, never the 409
Deno.test({
  name:
    "[pglite] POST create-order answers 20 concurrent requests with one Idempotency-Key 200, one order and 19 replays: PGlite serialises them",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await sharedPglite();
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const headers = { "Idempotency-Key": `race-${crypto.randomUUID()}` };
      const body = orderBody(store);
      const results = await Promise.all(Array.from({ length: 20 }, async () => {
        const res = await stack.post(body, headers);
        const { orderId } = await res.json();
        return { status: res.status, orderId, replayed: res.headers.get("Idempotent-Replayed") === "true" };
      }));
      assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
      assert.equal(new Set(results.map((r) => r.orderId)).size, 1);
      assert.equal(results.filter((r) => r.replayed).length, 19);
      assert.equal((await countStoreRows(db, store.storeId)).orders, 1);
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[postgres] orders status trigger keeps the lifecycle when 20 updates race to ship and to cancel one order",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    let orderId: string;
    try {
      orderId = (await (await stack.post(orderBody(store))).json()).orderId;
    } finally {
      await stack.close();
    }
    const move = (status: string) =>
      db.asRole(
        "postgres", // the tables' owner: no API role updates orders
        (s) => s.query("update public.orders set status = $2 where id = $1", [orderId, status]),
      );
    await move("paid");
    await move("processing");

    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => move(i % 2 === 0 ? "shipped" : "cancelled")),
    );
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") assert.equal((outcome.reason as { code?: string }).code, "OCT01");
    }
    const history = await db.query<{ from_status: string | null; to_status: string }>(
      "select from_status::text, to_status::text from public.order_status_history where order_id = $1 order by id",
      [orderId],
    );
    let previous: string | null = null;
    for (const { from_status, to_status } of history) {
      assert.equal(from_status, previous);
      assert.ok(ALLOWED_MOVES.has(`${from_status}>${to_status}`), `${from_status} -> ${to_status}`);
      previous = to_status;
    }
    assert.equal(history.length, 4);
    const [{ status }] = await db.query<{ status: string }>(
      "select status::text from public.orders where id = $1",
      [orderId],
    );
    assert.equal(status, previous);
    assert.ok(status === "shipped" || status === "cancelled");
  },
});
