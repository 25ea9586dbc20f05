/**
 * A failure answer means nothing was stored (contract, Failure): whatever the request failed for, and
 * however long its database call queued, no order, outbox row or rate-limit count is left behind, so no
 * buyer is told an order failed while it was stored and confirmed by e-mail.
 */
import assert from "node:assert/strict";
import { runOutboxTask } from "../local/outbox_task.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { sharedPostgres, testDatabases } from "./support/databases.ts";
import { recordingMailer, startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { holdLock, ownPool, waitForBlockedCreateOrders } from "./support/postgres_faults.ts";
import { countStoreRows } from "./support/store_rows.ts";
import { postUnfinishedBody } from "./support/unfinished_body.ts";

const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

function _delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function _ip(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

function _email(): string {
  return `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

/** Everything a request of `store`, from `ip`, for `email`, could have left: rows and rate-limit counts. */
async function _traces(db: SqlDatabase, store: TestStore, ip: string, email: string) {
  const [hits] = await db.query<{ ip: number; email: number }>(
    `select
       coalesce((select sum(hits) from public.order_rate_limits where bucket = 'ip:' || $1), 0)::int as ip,
       coalesce((select sum(hits) from public.order_rate_limits where bucket = 'email:' || $2), 0)::int as email`,
    [ip, email],
  );
  return { ...await countStoreRows(db, store.storeId), rateLimitHits: hits };
}

async function _assertInternalError(res: Response): Promise<void> {
  assert.equal(res.status, 500);
  assert.equal((await res.json()).error.code, "INTERNAL_ERROR");
}

// The way it broke: the counter row locked, the stand-in's pool full, one more order queued for a
// connection. Its create_order started only when a connection came free, after its buyer had been
// answered 500, counted its time budget from there, committed, and the outbox e-mailed a confirmation.
const pg = await sharedPostgres();
Deno.test({
  name:
    "[postgres] POST create-order stores nothing and e-mails no one when its call queues for a full pool behind a locked counter row past DATABASE_TIMEOUT_MS",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    const pool = await ownPool(db, 2);
    const stack = await startTestStack({ db: pool, env: { ...NO_LIMITS, DATABASE_TIMEOUT_MS: "3000" } });
    const buyerEmail = _email();
    try {
      assert.equal((await stack.post(orderBody(store))).status, 200);
      await stack.settled();
      const before = await countStoreRows(db, store.storeId);

      const lock = await holdLock(db, "select * from public.order_counters where store_id = $1 for update", [
        store.storeId,
      ]);
      // two orders fill the pool, each waiting on the counter row; the third waits for a connection
      const blocked = [
        stack.post(orderBody(store, { buyerEmail })),
        stack.post(orderBody(store, { buyerEmail })),
      ];
      await waitForBlockedCreateOrders(db, 2);
      const queued = stack.post(orderBody(store, { buyerEmail }));
      for (const res of await Promise.all([...blocked, queued])) await _assertInternalError(res);
      // the buyer has been told it failed; only now may the database go on
      await lock.release();
      // every call the pool was given, queued ones included, has finished once it closes
      await Promise.race([pool.close(), _delay(10_000)]);

      assert.deepEqual(await countStoreRows(db, store.storeId), before);
      // and the outbox task has nothing of theirs to send
      const drainStack = await startTestStack({ db, env: NO_LIMITS });
      const drained = recordingMailer();
      try {
        await runOutboxTask(["--min-age=0", "--stale-after=0"], {
          SUPABASE_URL: drainStack.url,
          SUPABASE_SERVICE_ROLE_KEY: drainStack.serviceKey,
        }, { mailer: drained, log: () => {}, print: () => {}, sleep: () => Promise.resolve() });
      } finally {
        await drainStack.close();
      }
      assert.deepEqual(drained.sent.filter((e) => e.to === buyerEmail), []);
    } finally {
      await Promise.race([stack.close(), _delay(3_000)]);
    }
  },
});

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] POST create-order leaves no order, outbox row or rate-limit count for a request that fails, whatever the code`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const limits = { RATE_LIMIT_PER_IP: "1000", RATE_LIMIT_PER_EMAIL: "1000" };
      const stack = await startTestStack({ db, env: limits });
      const strict = await startTestStack({ db, env: { ...limits, RATE_LIMIT_PER_EMAIL: "1" } });
      const url = `${stack.url}/functions/v1/create-order`;
      type Case = {
        status: number;
        code: string;
        /** Stores what the case needs first (an order whose key or limit it then reuses). */
        prepare?: (store: TestStore, ip: string, email: string) => Promise<void>;
        send: (store: TestStore, ip: string, email: string) => Promise<Response>;
        postgresOnly?: boolean;
      };
      const post = (body: unknown, ip: string, headers: Record<string, string> = {}) =>
        stack.post(body, { "X-Forwarded-For": ip, ...headers });
      const body = (store: TestStore, email: string, overrides = {}) =>
        orderBody(store, { buyerEmail: email, ...overrides });
      const key = `failing-${crypto.randomUUID()}`;
      const cases: Record<string, Case> = {
        "invalid JSON": { status: 400, code: "INVALID_JSON", send: (_s, ip) => post("{", ip) },
        "a control character in a name": {
          status: 400,
          code: "VALIDATION_FAILED",
          send: (s, ip, e) => post(body(s, e, { buyerName: "Asha\u001b[2J" }), ip),
        },
        "a total too large for the catalogue (decided in the database)": {
          status: 400,
          code: "VALIDATION_FAILED",
          async send(s, ip, e) {
            const id = crypto.randomUUID();
            await db.query(
              "insert into public.products (id, store_id, name, price) values ($1, $2, 'Dear', 9999999999.99)",
              [id, s.storeId],
            );
            return post(body(s, e, { items: [{ productId: id, quantity: 2, price: 9999999999.99 }] }), ip);
          },
        },
        "a price that is not the catalogue's": {
          status: 400,
          code: "PRICE_MISMATCH",
          send: (s, ip, e) =>
            post(body(s, e, { items: [{ productId: s.products[0].id, quantity: 1, price: 1 }] }), ip),
        },
        "a product with variants ordered without one": {
          status: 400,
          code: "VARIANT_REQUIRED",
          send: (s, ip, e) =>
            post(body(s, e, { items: [{ productId: s.products[2].id, quantity: 1, price: 250 }] }), ip),
        },
        "no key": {
          status: 401,
          code: "UNAUTHORIZED",
          send: (s, ip, e) =>
            fetch(url, {
              method: "POST",
              headers: { "X-Forwarded-For": ip },
              body: JSON.stringify(body(s, e)),
            }),
        },
        "an unknown store": {
          status: 404,
          code: "STORE_NOT_FOUND",
          send: (s, ip, e) => post(body(s, e, { storeId: crypto.randomUUID() }), ip),
        },
        "an unknown product": {
          status: 404,
          code: "PRODUCT_NOT_FOUND",
          send: (s, ip, e) =>
            post(body(s, e, { items: [{ productId: crypto.randomUUID(), quantity: 1, price: 1 }] }), ip),
        },
        "an unknown variant": {
          status: 404,
          code: "VARIANT_NOT_FOUND",
          send: (s, ip, e) =>
            post(
              body(s, e, {
                items: [{
                  productId: s.products[2].id,
                  variantId: crypto.randomUUID(),
                  quantity: 1,
                  price: 250,
                }],
              }),
              ip,
            ),
        },
        "PUT": {
          status: 405,
          code: "METHOD_NOT_ALLOWED",
          send: (s, ip, e) =>
            fetch(url, {
              method: "PUT",
              headers: { Authorization: `Bearer ${stack.anonKey}`, "X-Forwarded-For": ip },
              body: JSON.stringify(body(s, e)),
            }),
        },
        "a key whose first request is still in progress": {
          status: 409,
          code: "IDEMPOTENCY_KEY_IN_USE",
          postgresOnly: true, // PGlite has one connection: a second session cannot hold the key's lock
          async send(s, ip, e) {
            return await db.asRole("service_role", async (first) => {
              await first.query("select pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))", [
                s.storeId,
                key,
              ]);
              return await post(body(s, e), ip, { "Idempotency-Key": key });
            });
          },
        },
        "more than the stock left (decided after every row but the number was written)": {
          status: 409,
          code: "OUT_OF_STOCK",
          async prepare(s) {
            await db.query("update public.products set stock_quantity = 1 where id = $1", [s.products[0].id]);
          },
          send: (s, ip, e) => post(body(s, e), ip),
        },
        "a body over 64 KiB": {
          status: 413,
          code: "PAYLOAD_TOO_LARGE",
          send: (s, ip, e) => post(body(s, e, { buyerName: "x".repeat(70_000) }), ip),
        },
        "a key used before with another body": {
          status: 422,
          code: "IDEMPOTENCY_KEY_REUSED",
          async prepare(s, ip, e) {
            assert.equal((await post(body(s, e), ip, { "Idempotency-Key": key })).status, 200);
          },
          send: (s, ip, e) => post(body(s, e, { buyerName: "Someone Else" }), ip, { "Idempotency-Key": key }),
        },
        "one order too many for the buyer's e-mail": {
          status: 429,
          code: "RATE_LIMITED",
          async prepare(s, ip, e) {
            assert.equal((await strict.post(body(s, e), { "X-Forwarded-For": ip })).status, 200);
          },
          send: (s, ip, e) => strict.post(body(s, e), { "X-Forwarded-For": ip }),
        },
        "a failure after every row was written (the number is taken)": {
          status: 500,
          code: "INTERNAL_ERROR",
          async prepare(s, ip, e) {
            for (let i = 0; i < 2; i++) assert.equal((await post(body(s, e), ip)).status, 200);
            // the counter hands out a number the store already has: the last step fails, all rolls back
            await db.query("update public.order_counters set last_sequence = 1 where store_id = $1", [
              s.storeId,
            ]);
          },
          send: (s, ip, e) => post(body(s, e), ip),
        },
      };

      // the body that never finishes takes the frame's 10 s: it runs alongside the others
      const slowStore = await createTestStore(db);
      const [slowIp, slowEmail] = [_ip(), _email()];
      const slowBefore = await _traces(db, slowStore, slowIp, slowEmail);
      const slow = postUnfinishedBody(
        url,
        { Authorization: `Bearer ${stack.anonKey}`, "X-Forwarded-For": slowIp },
        JSON.stringify(body(slowStore, slowEmail)).slice(0, 40),
      );

      try {
        for (const [title, c] of Object.entries(cases)) {
          if (c.postgresOnly && db.kind !== "postgres") continue;
          await t.step(`${title}: ${c.status} ${c.code}`, async () => {
            const store = await createTestStore(db);
            const [ip, email] = [_ip(), _email()];
            await c.prepare?.(store, ip, email);
            await stack.settled();
            await strict.settled();
            const before = await _traces(db, store, ip, email);
            const res = await c.send(store, ip, email);
            assert.equal(res.status, c.status);
            assert.equal((await res.json()).error.code, c.code);
            await stack.settled();
            assert.deepEqual(await _traces(db, store, ip, email), before);
          });
        }
        await t.step("a body not received within 10 s: 408 REQUEST_TIMEOUT", async () => {
          const res = await slow;
          assert.equal(res.status, 408);
          assert.equal((res.body as { error: { code: string } }).error.code, "REQUEST_TIMEOUT");
          assert.deepEqual(await _traces(db, slowStore, slowIp, slowEmail), slowBefore);
        });
      } finally {
        await slow.catch(() => {});
        await stack.close();
        await strict.close();
      }
    },
  });
}
