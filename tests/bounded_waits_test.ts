/**
 * The deadline bounds every wait (contract, "Under concurrency, at scale, on a slow day"): no transaction of
 * a request is still open 500 ms after its deadline, whatever it waits on, and an order stuck behind one
 * store's locked rows never delays an order of another store, rate-limit buckets shared by IP or e-mail
 * included. Another session holds a row; the writers' calls queue behind it, each on a connection of its
 * own; a third connection reads from pg_stat_activity when each transaction ended. lock_timeout alone
 * restarts for every lock wait (the tuple lock behind the first waiter, then that waiter's transaction),
 * so the second caller in such a queue used to stay open a whole lock_timeout past its deadline.
 * PostgreSQL only: PGlite runs one transaction at a time.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import type { CreateOrderPayload } from "../supabase/functions/_shared/orders/order_store.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload, storeRowCounts } from "./support/create_order_payload.ts";
import { sharedPostgres } from "./support/databases.ts";
import {
  isWaiting,
  msPast,
  startWatchedCall,
  transactionEnd,
  waitUntilWaiting,
} from "./support/lock_waits.ts";
import { startTestStack } from "./support/local_stack.ts";
import { holdLock, ownPool } from "./support/postgres_faults.ts";
import { setStock, stockOf } from "./support/stock.ts";

/** The most a transaction may stay open past its request's deadline. */
const GRACE_MS = 500;

/**
 * Holds `hold` in another session while one caller per budget (ms from its own start, in this order)
 * queues behind it with `call(deadline)`; returns how late each caller's transaction ended and how it failed.
 */
async function queueBehind(
  db: SqlDatabase,
  hold: { statement: string; params: unknown[] },
  budgets: number[],
  call: (deadline: string, index: number) => { sql: string; params: unknown[] },
): Promise<{ late: number[]; codes: string[] }> {
  const lock = await holdLock(db, hold.statement, hold.params);
  const calls = [];
  try {
    for (const [index, budget] of budgets.entries()) {
      const deadline = new Date(Date.now() + budget).toISOString();
      const { sql, params } = call(deadline, index);
      const watched = await startWatchedCall(db, "service_role", sql, params);
      calls.push({ deadline, watched });
      await waitUntilWaiting(db, watched.pid);
    }
    const late = [];
    for (const { deadline, watched } of calls) {
      late.push(msPast(await transactionEnd(db, watched.pid), deadline));
    }
    const outcomes = await Promise.all(calls.map((c) => c.watched.outcome));
    return { late, codes: outcomes.map((o) => (o.ok ? "committed" : o.code)) };
  } finally {
    await lock.release();
    for (const { watched } of calls) await watched.close();
  }
}

/** Each caller's transaction ended by its deadline plus the grace, having failed on a lock wait or the deadline. */
function assertGoneByDeadline({ late, codes }: { late: number[]; codes: string[] }): void {
  for (const [i, ms] of late.entries()) {
    assert.ok(
      ms <= GRACE_MS,
      `caller ${i + 1}'s transaction ended ${ms} ms after its deadline (${late.join(", ")})`,
    );
  }
  for (const code of codes) assert.ok(code === "55P03" || code === "OCT00", `failed with ${code}`);
}

const postgres = await sharedPostgres();
const test = (name: string, fn: (db: SqlDatabase) => Promise<void>) =>
  Deno.test({
    name: `[postgres] ${name}`,
    ignore: postgres === null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => fn(postgres!),
  });

const createOrderCall = (payload: CreateOrderPayload) => (deadline: string) => ({
  sql: "select public.create_order($1::text::jsonb)",
  params: [JSON.stringify({ ...payload, orderedAt: new Date().toISOString(), deadline })],
});

test("create_order()'s transaction is gone within 500 ms of its deadline while another session holds its store's counter row, for every order queued behind it", async (db) => {
  const store = await createTestStore(db);
  await callCreateOrder(db, createOrderPayload(store));
  const waits = await queueBehind(
    db,
    {
      statement: "select 1 from public.order_counters where store_id = $1 for update",
      params: [store.storeId],
    },
    [2_000, 3_000],
    createOrderCall(createOrderPayload(store)),
  );
  assertGoneByDeadline(waits);
  assert.equal((await storeRowCounts(db, store.storeId)).orders, 1);
});

test("update_order_status()'s transaction is gone within 500 ms of its deadline while another session holds a stock row its cancellation gives back, for every cancellation queued behind it", async (db) => {
  const store = await createTestStore(db);
  await setStock(db, { productId: store.products[0].id }, 100);
  const orders: string[] = [];
  for (let i = 0; i < 2; i++) {
    orders.push((await callCreateOrder(db, createOrderPayload(store))).response.orderId);
  }
  const waits = await queueBehind(
    db,
    // what an update of the row takes (a seller's stock change, say)
    {
      statement: "select 1 from public.products where id = $1 for no key update",
      params: [store.products[0].id],
    },
    [2_000, 3_000],
    (deadline, i) => ({
      sql:
        "select public.update_order_status(p_status => 'cancelled', p_order_id => $1, p_note => 'Out of stock', p_deadline => $2)",
      params: [orders[i], deadline],
    }),
  );
  assertGoneByDeadline(waits);
  assert.deepEqual(await stockOf(db, { productId: store.products[0].id }), [96]);
});

test("update_order_status()'s transaction is gone within 500 ms of its deadline while another session holds the order's row, for every move queued behind it", async (db) => {
  const store = await createTestStore(db);
  const { response } = await callCreateOrder(db, createOrderPayload(store));
  const waits = await queueBehind(
    db,
    { statement: "select 1 from public.orders where id = $1 for update", params: [response.orderId] },
    [2_000, 3_000],
    (deadline) => ({
      sql: "select public.update_order_status(p_status => 'paid', p_order_id => $1, p_deadline => $2)",
      params: [response.orderId, deadline],
    }),
  );
  assertGoneByDeadline(waits);
  const [{ status }] = await db.query<{ status: string }>("select status from public.orders where id = $1", [
    response.orderId,
  ]);
  assert.equal(status, "payment_pending");
});

test("confirm_payment()'s transaction is gone within 500 ms of its deadline while another session holds the order's row, for every payment queued behind it", async (db) => {
  const store = await createTestStore(db);
  const payload = createOrderPayload(store);
  const { response } = await callCreateOrder(db, payload);
  const waits = await queueBehind(
    db,
    { statement: "select 1 from public.orders where id = $1 for update", params: [response.orderId] },
    [2_000, 3_000],
    (deadline, i) => ({
      sql: "select public.confirm_payment($1, $2, 'INR', 'razorpay', $3, $4, $5)",
      params: [
        response.orderId,
        payload.finalMinor,
        `pay_wait_${i}_${response.orderId}`,
        `evt_wait_${i}`,
        deadline,
      ],
    }),
  );
  assertGoneByDeadline(waits);
  const [{ payments }] = await db.query<{ payments: number }>(
    "select count(*)::int as payments from public.payments where order_id = $1",
    [response.orderId],
  );
  assert.equal(payments, 0);
});

test("record_refund_event()'s transaction is gone within 500 ms of its deadline while another session holds the refund's row, for every event queued behind it", async (db) => {
  const store = await createTestStore(db);
  const { response } = await callCreateOrder(db, createOrderPayload(store));
  const paymentId = `pay_refund_wait_${response.orderId}`;
  const [{ refundId }] = await db.asRole("service_role", (s) =>
    s.query<{ refundId: string }>(
      "select public.confirm_payment($1, 100, 'INR', 'razorpay', $2, $3) #>> '{refund,refundId}' as \"refundId\"",
      [response.orderId, paymentId, `evt_${paymentId}`],
    ));
  const waits = await queueBehind(
    db,
    // what the drain's record of a result takes
    { statement: "select 1 from public.refunds where id = $1 for update", params: [refundId] },
    [2_000, 3_000],
    (deadline, i) => ({
      sql: "select public.record_refund_event('razorpay', $1, $2, $3, $4, 'processed', $5)",
      params: [`evt_wait_${i}_${refundId}`, paymentId, `rfnd_wait_${i}`, refundId, deadline],
    }),
  );
  assertGoneByDeadline(waits);
  const [{ status }] = await db.query<{ status: string }>("select status from public.refunds where id = $1", [
    refundId,
  ]);
  assert.equal(status, "pending");
});

test("create_order() of another store sharing the IP and the e-mail rate-limit buckets commits while an order stuck behind a held counter row still waits", async (db) => {
  const limits = { ipLimit: 100, ipWindowSeconds: 3600, emailLimit: 100, emailWindowSeconds: 3600 };
  const shared = {
    clientIp: "198.51.100.77",
    buyer: { email: `cgnat-${crypto.randomUUID()}@example.com`, name: "Asha Rao", phone: "+919876543210" },
    rateLimits: limits,
  };
  const stuckStore = await createTestStore(db);
  const otherStore = await createTestStore(db);
  // the counter row and both bucket rows exist: the stuck order would bump them, the other order too
  await callCreateOrder(db, createOrderPayload(stuckStore, shared));
  const lock = await holdLock(db, "select 1 from public.order_counters where store_id = $1 for update", [
    stuckStore.storeId,
  ]);
  const deadline = new Date(Date.now() + 6_000).toISOString();
  const stuck = await startWatchedCall(db, "service_role", "select public.create_order($1::text::jsonb)", [
    JSON.stringify({ ...createOrderPayload(stuckStore, shared), deadline }),
  ]);
  try {
    await waitUntilWaiting(db, stuck.pid);
    const other = await callCreateOrder(db, {
      ...createOrderPayload(otherStore, shared),
      deadline: new Date(Date.now() + 6_000).toISOString(),
    });
    assert.equal(other.response.success, true);
    // not delayed by the stuck order: it committed while that one was still waiting
    assert.equal(await isWaiting(db, stuck.pid), true);
  } finally {
    await lock.release();
    await stuck.outcome;
    await stuck.close();
  }
  assert.equal((await storeRowCounts(db, otherStore.storeId)).orders, 1);
});

// pins a past bug: a direct caller's deadline was optional, and its waits ran to the statement timeout
test("POST /rest/v1/rpc/<writer> with the service key and no deadline, a null one or one an hour away ends its transaction within 6.5 s of its start while another session holds the row it waits on, for every writer that waits", async (db) => {
  const stores = [await createTestStore(db), await createTestStore(db), await createTestStore(db)];
  const order = await createTestStore(db).then((store) => callCreateOrder(db, createOrderPayload(store)));
  const locks = [
    ...await Promise.all(
      stores.map((store) =>
        callCreateOrder(db, createOrderPayload(store)).then(() =>
          holdLock(db, "select 1 from public.order_counters where store_id = $1 for update", [store.storeId])
        )
      ),
    ),
    await holdLock(db, "select 1 from public.orders where id = $1 for update", [order.response.orderId]),
  ];
  // a refund due (a payment of the wrong amount) and a payment-IP bucket of this window, each held too
  const wrongAmount = await createTestStore(db).then((store) =>
    callCreateOrder(db, createOrderPayload(store))
  );
  await db.asRole(
    "service_role",
    (s) =>
      s.query("select public.confirm_payment($1, 100, 'INR', 'razorpay', $2, $3)", [
        wrongAmount.response.orderId,
        `pay_${crypto.randomUUID()}`,
        `evt_${crypto.randomUUID()}`,
      ]),
  );
  const [{ id: refundId }] = await db.query<{ id: string }>(
    "select id::text from public.refunds where order_id = $1",
    [
      wrongAmount.response.orderId,
    ],
  );
  const clientIp = `203.0.113.${Math.floor(Math.random() * 250)}`;
  await db.query(
    `insert into public.order_rate_limits (bucket, window_start, hits)
     values ('payment-ip:' || $1, to_timestamp(floor(extract(epoch from now()) / 3600) * 3600), 1)`,
    [clientIp],
  );
  locks.push(
    await holdLock(db, "select 1 from public.refunds where id = $1 for update", [refundId]),
    await holdLock(
      db,
      "select 1 from public.order_rate_limits where bucket = 'payment-ip:' || $1 for update",
      [
        clientIp,
      ],
    ),
  );
  const pool = await ownPool(db, 10);
  const stack = await startTestStack({ db: pool });
  const rpc = async (fn: string, args: Record<string, unknown>) => {
    const started = performance.now();
    const res = await fetch(`${stack.url}/rest/v1/rpc/${fn}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        apikey: stack.serviceKey,
        Authorization: `Bearer ${stack.serviceKey}`,
      },
      body: JSON.stringify(args),
    });
    return { ms: performance.now() - started, code: (await res.json()).code as string };
  };
  const hourAway = new Date(Date.now() + 3_600_000).toISOString();
  const orderId = order.response.orderId;
  try {
    const calls: Record<string, Promise<{ ms: number; code: string }>> = {
      "create_order without deadline": rpc("create_order", { payload: createOrderPayload(stores[0]) }),
      "create_order with deadline null": rpc("create_order", {
        payload: { ...createOrderPayload(stores[1]), deadline: null },
      }),
      "create_order with a deadline an hour away": rpc("create_order", {
        payload: { ...createOrderPayload(stores[2]), deadline: hourAway },
      }),
      "update_order_status with p_deadline null": rpc("update_order_status", {
        p_status: "processing",
        p_order_id: orderId,
        p_deadline: null,
      }),
      "confirm_payment with p_deadline null": rpc("confirm_payment", {
        p_order_id: orderId,
        p_amount_minor: 71_545,
        p_currency: "INR",
        p_provider: "razorpay",
        p_provider_payment_id: `pay_${crypto.randomUUID()}`,
        p_event_id: `evt_${crypto.randomUUID()}`,
        p_deadline: null,
      }),
      "keep_provider_order with p_deadline null": rpc("keep_provider_order", {
        p_order_id: orderId,
        p_provider: "razorpay",
        p_provider_order_id: `order_${crypto.randomUUID().slice(0, 8)}`,
        p_amount_minor: 71_545,
        p_currency: "INR",
        p_deadline: null,
      }),
      "begin_payment with p_deadline null": rpc("begin_payment", {
        p_order_id: orderId,
        p_client_ip: clientIp,
        p_ip_limit: 100,
        p_ip_window_seconds: 3600,
        p_deadline: null,
      }),
      "record_refund_result (no deadline parameter)": rpc("record_refund_result", {
        p_refund_id: refundId,
        p_claim_token: crypto.randomUUID(),
        p_provider_refund_id: "rfnd_held",
      }),
    };
    const outcomes = Object.fromEntries(
      await Promise.all(Object.entries(calls).map(async ([name, call]) => [name, await call] as const)),
    );
    for (const [name, { ms, code }] of Object.entries(outcomes)) {
      // the client's time from sending to the answer: the transaction started after the first and ended before the second
      assert.ok(ms <= 6_000 + GRACE_MS, `${name} answered after ${Math.round(ms)} ms`);
      assert.ok(code === "55P03" || code === "OCT00", `${name} failed with ${code}`);
    }
  } finally {
    for (const lock of locks) await lock.release();
    await stack.close();
    await pool.close();
  }
  for (const store of stores) assert.equal((await storeRowCounts(db, store.storeId)).orders, 1);
});
