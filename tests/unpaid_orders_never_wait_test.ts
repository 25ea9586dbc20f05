/**
 * The unpaid-order batch never waits for a lock held by anyone (contract, "Under concurrency, at scale, on a
 * slow day": an order stuck behind one store's locked rows never delays an order of another store). It takes
 * each due order only if its row, its store's queue and its stock rows are free at once, and leaves the others
 * for a later run (`skipped`). The way it broke: with a store-2 product row held by another session, the
 * batch took store 1's queue, waited on that row to its 6 s deadline and rolled back: store 1's orders waited
 * behind it (5.51 s, 4.56 s, ...), the drain answered "unpaidOrders": null, and no run cancelled anything
 * while the row stayed held. PostgreSQL only: PGlite runs one transaction at a time.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { sharedPostgres } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { holdLock } from "./support/postgres_faults.ts";
import { setStock, stockOf } from "./support/stock.ts";
import { orderStatus } from "./support/status_moves.ts";

interface UnpaidOrder {
  orderId: string;
  orderNumber: string;
  paymentMethod: string;
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

/** A store whose first product tracks stock, with a gateway order of it placed two minutes ago (unpaid). */
async function storeWithAgedOrder(db: SqlDatabase): Promise<{ store: TestStore; orderId: string }> {
  const store = await createTestStore(db);
  await setStock(db, { productId: store.products[0].id }, 100);
  // within create_order's five minutes of its clock, past a one-minute window at once
  const { response } = await callCreateOrder(
    db,
    createOrderPayload(store, { orderedAt: new Date(Date.now() - 120_000).toISOString() }),
  );
  return { store, orderId: response.orderId };
}

/** cancel_unpaid_orders as the drain calls it (gateway orders unpaid for a minute, 6 s), as the service role. */
async function cancelUnpaid(db: SqlDatabase) {
  const [row] = await db.asRole(
    "service_role",
    (s) =>
      s.query<{ result: { cancelled: UnpaidOrder[]; skipped: UnpaidOrder[] } }>(
        "select public.cancel_unpaid_orders(1, 0, 100, $1) as result",
        [new Date(Date.now() + 6_000).toISOString()],
      ),
  );
  return row.result;
}

const ids = (orders: UnpaidOrder[], ours: string[]) =>
  orders.map((o) => o.orderId).filter((id) => ours.includes(id)).sort();

test("cancel_unpaid_orders() cancels the due orders whose rows it can take at once, and skips without waiting one whose stock row another session holds", async (db) => {
  const one = await storeWithAgedOrder(db);
  const two = await storeWithAgedOrder(db);
  const ours = [one.orderId, two.orderId];
  // what a seller's long stock edit takes (FOR UPDATE in the way it broke)
  const lock = await holdLock(db, "select 1 from public.products where id = $1 for update", [
    two.store.products[0].id,
  ]);
  let result;
  try {
    // answered while the row is still held: the batch did not wait for it
    result = await cancelUnpaid(db);
  } finally {
    await lock.release();
  }
  assert.deepEqual(ids(result.cancelled, ours), [one.orderId]);
  assert.deepEqual(ids(result.skipped, ours), [two.orderId]);
  assert.equal(await orderStatus(db, one.orderId), "cancelled");
  assert.equal(await orderStatus(db, two.orderId), "payment_pending");
  assert.deepEqual(await stockOf(db, { productId: one.store.products[0].id }), [100]);
  assert.deepEqual(await stockOf(db, { productId: two.store.products[0].id }), [98]);

  // the row free again, the next run cancels it
  const next = await cancelUnpaid(db);
  assert.deepEqual(ids(next.cancelled, ours), [two.orderId]);
  assert.deepEqual(ids(next.skipped, ours), []);
  assert.deepEqual(await stockOf(db, { productId: two.store.products[0].id }), [100]);
});

test("cancel_unpaid_orders() skips without waiting an order whose store's queue another transaction holds (an order of that store being placed)", async (db) => {
  const busy = await storeWithAgedOrder(db);
  const free = await storeWithAgedOrder(db);
  const ours = [busy.orderId, free.orderId];
  const lock = await holdLock(db, "select pg_advisory_xact_lock(hashtextextended('store/' || $1::text, 0))", [
    busy.store.storeId,
  ]);
  let result;
  try {
    result = await cancelUnpaid(db);
  } finally {
    await lock.release();
  }
  assert.deepEqual(ids(result.cancelled, ours), [free.orderId]);
  assert.deepEqual(ids(result.skipped, ours), [busy.orderId]);
  assert.equal(await orderStatus(db, busy.orderId), "payment_pending");
});

test("POST outbox-drain cancels one store's unpaid order while another session holds a product row of a second store, reports the second store's as skipped, and a later run cancels it", async (db) => {
  const one = await storeWithAgedOrder(db);
  const two = await storeWithAgedOrder(db);
  const stack = await startTestStack({ db, env: { UNPAID_GATEWAY_ORDER_MINUTES: "1" } });
  const drain = async () => {
    const res = await fetch(`${stack.url}/functions/v1/outbox-drain`, {
      method: "POST",
      headers: { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
      body: "{}",
    });
    assert.equal(res.status, 200);
    return (await res.json()).unpaidOrders as { cancelled: number; orderIds: string[]; skipped: number };
  };
  try {
    const lock = await holdLock(db, "select 1 from public.products where id = $1 for update", [
      two.store.products[0].id,
    ]);
    let first;
    try {
      // two runs in a row, both while the row is held: the first cancels store 1's order, neither waits
      first = await drain();
      const second = await drain();
      assert.ok(!second.orderIds.includes(two.orderId), JSON.stringify(second));
      assert.ok(second.skipped >= 1, JSON.stringify(second));
      // and store 1 takes orders meanwhile
      const order = await stack.post({
        storeId: one.store.storeId,
        buyerEmail: "ravi@example.com",
        buyerName: "Ravi Kumar",
        buyerPhone: "+919876543210",
        shippingAddress: {
          line1: "12 MG Road",
          city: "Pune",
          state: "MH",
          postalCode: "411001",
          country: "IN",
        },
        items: [{ productId: one.store.products[0].id, quantity: 1, price: one.store.products[0].price }],
        paymentMethod: "gateway",
      });
      assert.equal(order.status, 200);
      await order.body?.cancel();
    } finally {
      await lock.release();
    }
    assert.ok(first.orderIds.includes(one.orderId), JSON.stringify(first));
    assert.ok(!first.orderIds.includes(two.orderId), JSON.stringify(first));
    assert.ok(first.skipped >= 1, JSON.stringify(first));
    assert.equal(await orderStatus(db, one.orderId), "cancelled");
    assert.equal(await orderStatus(db, two.orderId), "payment_pending");

    const later = await drain();
    assert.ok(later.orderIds.includes(two.orderId), JSON.stringify(later));
    assert.equal(await orderStatus(db, two.orderId), "cancelled");
  } finally {
    await stack.close();
  }
});
