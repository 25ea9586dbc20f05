/**
 * Stock under concurrency, on PostgreSQL (PGlite has one connection, so nothing there runs at once):
 * the last units are never sold twice, and orders taking two products' stock in opposite item orders
 * never deadlock, since create_order locks stock rows in one fixed order.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import {
  callCreateOrderAsTheAdapter,
  createOrderPayload,
  payloadItem,
} from "./support/create_order_payload.ts";
import { sharedPostgres } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { setStock, stockOf } from "./support/stock.ts";
import { countStoreRows } from "./support/store_rows.ts";

const pg = await sharedPostgres();
const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

Deno.test({
  name:
    "[postgres] POST create-order sells exactly 10 units to 50 concurrent orders for 10: 40 OUT_OF_STOCK, stock 0, numbers 1..10 without gaps",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    const teapot = { productId: store.products[0].id };
    await setStock(db, teapot, 10);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const body = orderBody(store, { items: [{ productId: teapot.productId, quantity: 1, price: 349 }] });
      const results = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
        const res = await stack.post({ ...body, buyerEmail: `buyer${i}@example.com` });
        return { status: res.status, body: await res.json() };
      }));
      const sold = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      assert.equal(sold.length, 10);
      assert.equal(refused.length, 40);
      for (const r of refused) {
        assert.equal(r.status, 409);
        assert.equal(r.body.error.code, "OUT_OF_STOCK");
        assert.deepEqual(r.body.error.details, [
          { index: 0, productId: teapot.productId, variantId: null, available: 0 },
        ]);
      }
      const year = new Date().getUTCFullYear();
      assert.deepEqual(
        sold.map((r) => r.body.orderNumber).sort(),
        Array.from({ length: 10 }, (_, n) => `ORD-${year}-${String(n + 1).padStart(6, "0")}`),
      );
      assert.deepEqual(await stockOf(db, teapot), [0]);
      const rows = await countStoreRows(db, store.storeId);
      assert.deepEqual(
        { orders: rows.orders, items: rows.items, emails: rows.emails, counter: rows.counter },
        {
          orders: 10,
          items: 10,
          emails: 20,
          counter: 10,
        },
      );
      await stack.settled();
      assert.equal(stack.mail.sent.length, 20);
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[postgres] create_order() takes two products' stock for 40 concurrent orders listing them in opposite orders without a deadlock",
  ignore: !pg,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pg!;
    const store = await createTestStore(db);
    const [a, b] = store.products.map((p) => ({ productId: p.id }));
    await setStock(db, a, 1000);
    await setStock(db, b, 1000);
    const ab = [payloadItem(a.productId, 34_900), payloadItem(b.productId, 19_950)];
    // each as the function's adapter calls it: a call its store's waiter slots refuse (OCW29) is made again
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) =>
      callCreateOrderAsTheAdapter(
        db,
        createOrderPayload(store, { items: i % 2 === 0 ? ab : [...ab].reverse() }),
      )));
    const failures = results.flatMap((r) =>
      r.status === "rejected" ? [(r.reason as { code?: string }).code ?? String(r.reason)] : []
    );
    assert.deepEqual(failures, []); // a deadlock would be 40P01
    assert.deepEqual(await stockOf(db, a, b), [960, 960]);
  },
});
