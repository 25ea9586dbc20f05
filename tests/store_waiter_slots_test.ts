/**
 * An order stuck behind one store's locked rows never delays an order of another store (contract, "Under
 * concurrency, at scale, on a slow day"), the pool of connections included: at most K orders of a store
 * are in the database at once (its waiter slots, order_settings.store_order_slots, default 3); the K+1th
 * fails at once with OCW29 (STORE_BUSY) and create-order's adapter tries it again after a short pause,
 * holding no connection, until its deadline. The way it broke: another session held one store's counter
 * row, 40 of its orders filled the stack's pool of 10, and an order of another store waited 5.99 s for a
 * connection. PostgreSQL only: PGlite runs one transaction at a time.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderFailure, createOrderPayload } from "./support/create_order_payload.ts";
import { sharedPostgres } from "./support/databases.ts";
import { isWaiting, startWatchedCall, waitUntilWaiting } from "./support/lock_waits.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import {
  holdLock,
  ownPool,
  waitForBlockedCreateOrders,
  waitForCreateOrderIdle,
} from "./support/postgres_faults.ts";
import { countStoreRows } from "./support/store_rows.ts";

const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };
/** The stack's database budget in these tests: short, so that a test that waits for it stays short. */
const BUDGET_MS = 3_000;
/** The most an answer may come after its request's deadline. */
const GRACE_MS = 500;
/** The stack's pool, as the local stack's PostgREST stand-in and Supabase's local PostgREST have it. */
const POOL_SIZE = 10;

const postgres = await sharedPostgres();
const test = (name: string, fn: (db: SqlDatabase) => Promise<void>) =>
  Deno.test({
    name: `[postgres] ${name}`,
    ignore: postgres === null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => fn(postgres!),
  });

/** Holds `store`'s counter row (after one order, so that the row exists) in another session. */
async function holdCounterRow(db: SqlDatabase, store: TestStore) {
  await callCreateOrder(db, createOrderPayload(store));
  return holdLock(db, "select 1 from public.order_counters where store_id = $1 for update", [store.storeId]);
}

/** The pids of this database's backends waiting on a lock inside create_order. */
async function blockedCreateOrders(db: SqlDatabase): Promise<number[]> {
  const rows = await db.query<{ pid: number }>(
    `select pid from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock' and query like '%create_order%'`,
  );
  return rows.map((r) => r.pid);
}

/** A request that records when it was sent and when, and how, it was answered. */
function timedPost(post: () => Promise<Response>) {
  const sent = Date.now();
  const answer = post().then(async (res) => ({
    status: res.status,
    code: res.status === 200 ? null : (await res.json()).error.code as string,
    retryAfter: res.headers.get("Retry-After"),
    msAfterSent: Date.now() - sent,
  }));
  let answered = false;
  answer.then(() => (answered = true), () => (answered = true));
  return { answer, isAnswered: () => answered };
}

test("create_order() fails at once with OCW29 STORE_BUSY while order_settings.store_order_slots orders of its store wait behind its held counter row, and another store's order commits", async (db) => {
  const stuck = await createTestStore(db);
  const other = await createTestStore(db);
  const lock = await holdCounterRow(db, stuck);
  await db.query("update public.order_settings set store_order_slots = 2");
  const waiting = [];
  try {
    const deadline = new Date(Date.now() + 5_000).toISOString();
    for (let i = 0; i < 2; i++) {
      const call = await startWatchedCall(db, "service_role", "select public.create_order($1::text::jsonb)", [
        JSON.stringify({ ...createOrderPayload(stuck), deadline }),
      ]);
      waiting.push(call);
      await waitUntilWaiting(db, call.pid);
    }
    // the third of the store neither waits nor stores anything; the other store's order is not in its way
    const busy = await createOrderFailure(db, { ...createOrderPayload(stuck), deadline });
    assert.deepEqual([busy.code, JSON.parse(busy.detail!)], ["OCW29", { retryAfterSeconds: 1 }]);
    const otherOrder = await callCreateOrder(db, { ...createOrderPayload(other), deadline });
    assert.equal(otherOrder.response.orderNumber.slice(-6), "000001");
    for (const call of waiting) assert.equal(await isWaiting(db, call.pid), true);
  } finally {
    await db.query("update public.order_settings set store_order_slots = 3");
    await lock.release();
  }
  // released, the two that waited commit, numbered after the first
  for (const call of waiting) {
    assert.equal((await call.outcome).ok, true);
    await call.close();
  }
  assert.equal((await countStoreRows(db, stuck.storeId)).orders, 3);
});

test("POST create-order of another store commits while more orders of one store than the pool has connections wait behind its held counter row, and they all commit once it is released", async (db) => {
  const stuck = await createTestStore(db);
  const other = await createTestStore(db);
  const pool = await ownPool(db, POOL_SIZE);
  const stack = await startTestStack({
    db: pool,
    env: { ...NO_LIMITS, DATABASE_TIMEOUT_MS: String(BUDGET_MS) },
  });
  const lock = await holdCounterRow(db, stuck);
  let released = false;
  try {
    const stuckOrders = Array.from(
      { length: POOL_SIZE + 5 },
      (_, i) => timedPost(() => stack.post(orderBody(stuck, { buyerEmail: `stuck${i}@example.com` }))),
    );
    // the store's three slots are taken by orders waiting on the row; the other twelve try again and again
    await waitForBlockedCreateOrders(db, 3);
    const waitingPids = await blockedCreateOrders(db);

    const otherOrder = await stack.post(orderBody(other));
    assert.equal(otherOrder.status, 200);
    assert.equal((await otherOrder.json()).orderNumber.slice(-6), "000001");
    // it went through while every order of the stuck store was still unanswered, its slots still waiting
    assert.deepEqual(stuckOrders.filter((o) => o.isAnswered()).length, 0);
    assert.equal(waitingPids.length, 3);
    for (const pid of waitingPids) assert.equal(await isWaiting(db, pid), true);

    await lock.release();
    released = true;
    const answers = await Promise.all(stuckOrders.map((o) => o.answer));
    assert.deepEqual(answers.map((a) => a.status), Array(POOL_SIZE + 5).fill(200));
  } finally {
    if (!released) await lock.release();
    await stack.close();
    await pool.close();
  }
  const rows = await countStoreRows(db, stuck.storeId);
  assert.equal(rows.orders, 1 + POOL_SIZE + 5);
  assert.equal(rows.counter, 1 + POOL_SIZE + 5);
});

test("POST create-order answers every order of a store whose counter row stays held 429 RATE_LIMITED with Retry-After (no slot came free) or 500 (a slot, then the deadline) by its deadline, and stores none", async (db) => {
  const stuck = await createTestStore(db);
  const pool = await ownPool(db, POOL_SIZE);
  const stack = await startTestStack({
    db: pool,
    env: { ...NO_LIMITS, DATABASE_TIMEOUT_MS: String(BUDGET_MS) },
  });
  const lock = await holdCounterRow(db, stuck);
  try {
    const answers = await Promise.all(
      Array.from(
        { length: POOL_SIZE + 5 },
        (_, i) =>
          timedPost(() => stack.post(orderBody(stuck, { buyerEmail: `late${i}@example.com` }))).answer,
      ),
    );
    for (const answer of answers) {
      // sent before the handler started its clock: the deadline came no sooner than BUDGET_MS after this
      assert.ok(
        answer.msAfterSent <= BUDGET_MS + GRACE_MS,
        `answered ${answer.msAfterSent} ms after it was sent`,
      );
    }
    const byStatus = (status: number) => answers.filter((a) => a.status === status);
    assert.equal(byStatus(429).length + byStatus(500).length, POOL_SIZE + 5);
    // the three that held a slot waited to their deadline (and a try that took a slot just freed, then
    // met its own deadline, is one more); the others never got one
    assert.ok(byStatus(500).length >= 3, `${byStatus(500).length} answered 500`);
    assert.ok(byStatus(429).length >= 1, "none answered 429");
    for (const answer of byStatus(429)) {
      assert.deepEqual([answer.code, answer.retryAfter], ["RATE_LIMITED", "1"]);
    }
    // and no transaction of theirs outlived its answer
    await waitForCreateOrderIdle(db, 100);
  } finally {
    await lock.release();
    await stack.close();
    await pool.close();
  }
  assert.equal((await countStoreRows(db, stuck.storeId)).orders, 1);
});
