/**
 * Faults (issue 6, part 2): the database unreachable, dropping the connection mid-transaction, or too
 * slow; Resend down, slow, 429 or 500. Each on the real local stack; never a mock of our database.
 */
import assert from "node:assert/strict";
import { openPostgres } from "../local/open_database.ts";
import { runOutboxTask } from "../local/outbox_task.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { sharedPglite, sharedPostgres } from "./support/databases.ts";
import { type FakeAnswer, startFakeResend } from "../local/fake_resend.ts";
import { startTestStack } from "./support/local_stack.ts";
import { capturingLogger, findLeaks } from "./support/log_capture.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { orderBody } from "./support/order_request.ts";
import {
  closedPort,
  holdLock,
  ownPool,
  waitForBlockedCreateOrder,
  waitForCreateOrderIdle,
} from "./support/postgres_faults.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { countStoreRows } from "./support/store_rows.ts";

const pg = await sharedPostgres();
const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };
const EMPTY = { orders: 0, items: 0, history: 0, emails: 0, idempotencyKeys: 0, counter: null };

/** What a buyer wrote that no log line or error body may show. */
function _personalData(store: TestStore): string[] {
  const body = orderBody(store);
  const address = body.shippingAddress as Record<string, string>;
  return [body.buyerEmail as string, body.buyerName as string, "9876543210", "98765 43210", address.line1];
}

function _delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function _assertInternalError(res: Response): Promise<void> {
  assert.equal(res.status, 500);
  assert.deepEqual(await res.json(), {
    success: false,
    error: { code: "INTERNAL_ERROR", message: "Internal error" },
  });
}

Deno.test({
  name:
    "[pglite] POST create-order answers 500 INTERNAL_ERROR, logged with its request id, when the database is unreachable",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const store = await createTestStore(await sharedPglite());
    const unreachable: [string, { db: SqlDatabase; env?: Record<string, string> }][] = [
      ["PostgreSQL on a closed port", {
        db: openPostgres(`postgres://postgres@127.0.0.1:${closedPort()}/none`, 1),
      }],
      ["PostgREST on a closed port", {
        db: await sharedPglite(),
        env: { SUPABASE_URL: `http://127.0.0.1:${closedPort()}` },
      }],
    ];
    for (const [name, setup] of unreachable) {
      await t.step(name, async () => {
        const log = capturingLogger();
        const stack = await startTestStack({ ...setup, env: { ...NO_LIMITS, ...setup.env }, log });
        try {
          const started = performance.now();
          const res = await stack.post(orderBody(store));
          const requestId = res.headers.get("x-request-id");
          const text = await res.clone().text();
          await _assertInternalError(res);
          assert.ok(performance.now() - started < 5_000);
          const line = log.lines.find((l) => JSON.parse(l).requestId === requestId);
          assert.ok(line, "no log line carries the response's request id");
          assert.equal(JSON.parse(line).status, 500);
          assert.ok(JSON.parse(line).cause, "the log line names the cause");
          const secrets = [stack.anonKey, stack.serviceKey, ..._personalData(store)];
          assert.deepEqual(findLeaks(text, secrets), []);
          for (const l of log.lines) assert.deepEqual(findLeaks(l, secrets), [], l);
          assert.equal(stack.mail.sent.length, 0);
        } finally {
          await stack.close();
        }
      });
    }
  },
});

Deno.test({
  name:
    "[postgres] POST create-order leaves no partial order when the database drops the connection mid-transaction",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    // a pool of the stack's own: closing it ends the call that lost its backend (see RELIABILITY.md)
    const pool = await ownPool(db, 4);
    const stack = await startTestStack({ db: pool, env: { ...NO_LIMITS, DATABASE_TIMEOUT_MS: "5000" } });
    try {
      const first = await (await stack.post(orderBody(store))).json();
      assert.equal(first.orderNumber.slice(-6), "000001");
      const before = await countStoreRows(db, store.storeId);
      // another transaction inserts the request's idempotency key and keeps it uncommitted: create_order
      // writes its key last, so blocked there it has taken the number and written the order, its items
      // and its e-mails, all uncommitted
      const key = "dropped-connection-1";
      const lock = await holdLock(
        db,
        "insert into public.idempotency_keys (store_id, key, request_hash, order_id) values ($1, $2, $3, $4)",
        [store.storeId, key, "0".repeat(64), first.orderId],
      );
      const headers = { "Idempotency-Key": key };
      const body = orderBody(store, { buyerName: "Ravi Kumar" });
      const pending = stack.post(body, headers);
      const pid = await waitForBlockedCreateOrder(db);
      await db.query("select pg_terminate_backend($1)", [pid]);
      await _assertInternalError(await pending);
      await lock.release();
      await db.query("delete from public.idempotency_keys where store_id = $1 and key = $2", [
        store.storeId,
        key,
      ]);

      assert.deepEqual(await countStoreRows(db, store.storeId), before);
      // the key was never bound, so the buyer's retry creates the order, with the next number
      const retry = await stack.post(body, headers);
      assert.equal(retry.status, 200);
      assert.equal((await retry.json()).orderNumber.slice(-6), "000002");
      await stack.settled();
      assert.equal(stack.mail.sent.length, 4);
    } finally {
      // the call that lost its backend never settles in postgres.js under Deno: do not wait for it
      await Promise.race([Promise.all([pool.close(), stack.close()]), _delay(3_000)]);
    }
  },
});

Deno.test({
  name:
    "[postgres] POST create-order answers a timely 500 and commits no order when the database is slower than DATABASE_TIMEOUT_MS",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    const log = capturingLogger();
    const stack = await startTestStack({ db, env: { ...NO_LIMITS, DATABASE_TIMEOUT_MS: "300" }, log });
    try {
      // another session holds the store row: create_order waits for it
      const lock = await holdLock(db, "select * from public.stores where id = $1 for update", [
        store.storeId,
      ]);
      const started = performance.now();
      const res = await stack.post(orderBody(store));
      const elapsed = performance.now() - started;
      await _assertInternalError(res);
      assert.ok(elapsed < 2_000, `answered after ${Math.round(elapsed)} ms`);
      await lock.release();
      await waitForCreateOrderIdle(db);

      // the buyer was told it failed: no order may appear afterwards
      assert.deepEqual(await countStoreRows(db, store.storeId), EMPTY);
      await stack.settled();
      assert.equal(stack.mail.sent.length, 0);
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[postgres] POST payment-webhook stores nothing when the order stays locked past PAYMENT_WEBHOOK_TIMEOUT_MS, and Razorpay's retry pays it",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const { response } = await callCreateOrder(db, createOrderPayload(await createTestStore(db)));
    const { orderId } = response;
    const stack = await startTestStack({ db, env: { PAYMENT_WEBHOOK_TIMEOUT_MS: "300" } });
    const event = paymentCapturedEvent({ orderId, amount: 71_545 });
    const eventId = `evt_${crypto.randomUUID()}`;
    try {
      // a seller's move holds the order row: confirm_payment waits for it until its deadline, then rolls back
      const lock = await holdLock(db, "select * from public.orders where id = $1 for update", [orderId]);
      await _assertInternalError(await postRazorpayEvent(stack, event, { eventId }));
      await lock.release();
      const stored = await db.query("select 1 from public.payments where order_id = $1", [orderId]);
      assert.equal(stored.length, 0);

      const retry = await postRazorpayEvent(stack, event, { eventId });
      assert.equal(retry.status, 200);
      assert.deepEqual([(await retry.json()).outcome], ["paid"]);
      await stack.settled();
      // one paid e-mail each side: the buyer's and the seller's "ready to ship"
      assert.deepEqual(stack.mail.sent.map((m) => m.idempotencyKey).sort(), [
        `order/${orderId}/seller/paid`,
        `order/${orderId}/status/paid`,
      ]);
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[pglite] POST create-order answers 200 while Resend fails, and the outbox task later sends each e-mail exactly once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    const store = await createTestStore(db);
    const faults: [string, (fake: ReturnType<typeof startFakeResend>) => Promise<void> | void][] = [
      ["Resend down", (fake) => fake.down()],
      ["Resend answering 500", (fake) => fake.script(...Array<FakeAnswer>(6).fill({ status: 500 }))],
      [
        "Resend answering 429 with a long retry-after",
        (fake) => fake.script({ status: 429, retryAfter: 120 }, { status: 429, retryAfter: 120 }),
      ],
    ];
    for (const [name, inject] of faults) {
      await t.step(name, async () => {
        const fake = startFakeResend();
        const env = { ...NO_LIMITS, RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: fake.url };
        const stack = await startTestStack({ db, env, mailer: undefined });
        try {
          await inject(fake);
          const buyerEmail = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
          const res = await stack.post(orderBody(store, { buyerEmail }));
          assert.equal(res.status, 200);
          const { orderId, orderNumber } = await res.json();
          await stack.settled();
          const rows = await db.query<{ status: string }>(
            "select status from public.email_outbox where order_id = $1",
            [orderId],
          );
          assert.deepEqual(rows.map((r) => r.status), ["failed", "failed"]);

          fake.up();
          const drain = () =>
            runOutboxTask(["--min-age=0", "--stale-after=0"], {
              SUPABASE_URL: stack.url,
              SUPABASE_SERVICE_ROLE_KEY: stack.serviceKey,
              ...env,
            }, { log: () => {}, print: () => {}, sleep: () => Promise.resolve() });
          await drain();
          await drain();
          // each e-mail of the order reached Resend's inbox exactly once (others' rows may drain too)
          const delivered = fake.delivered.filter((e) => e.subject.includes(orderNumber));
          assert.deepEqual(delivered.map((e) => String(e.to)).sort(), [buyerEmail, store.ownerEmail].sort());
          const sent = await db.query<{ status: string }>(
            "select status from public.email_outbox where order_id = $1",
            [orderId],
          );
          assert.deepEqual(sent.map((r) => r.status), ["sent", "sent"]);
        } finally {
          await stack.close();
          await fake.close();
        }
      });
    }
  },
});
