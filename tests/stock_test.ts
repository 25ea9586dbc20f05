/**
 * Stock: create_order takes it in the order's transaction (a variant's own stock, else its product's),
 * refuses a shortage with OCQ09 OUT_OF_STOCK storing nothing, and a cancelled order puts it back once.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import {
  callCreateOrder,
  createOrderFailure,
  createOrderPayload,
  NO_ROWS,
  payloadItem,
  storeRowCounts,
} from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { setStock, stockOf } from "./support/stock.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("create_order() takes a variant's own stock when it has one, else its product's, and leaves untracked stock alone", async () => {
    const store = await createTestStore(db);
    const [assam, masala, tumbler] = store.products.map((p) => ({ productId: p.id }));
    const [small, large] = store.variants.map((v) => ({ variantId: v.id }));
    await setStock(db, assam, 10);
    await setStock(db, tumbler, 5);
    await setStock(db, large, 3);
    const { response } = await callCreateOrder(
      db,
      createOrderPayload(store, {
        items: [
          payloadItem(assam.productId, 34_900, { quantity: 2 }),
          payloadItem(tumbler.productId, 29_900, { variantId: large.variantId, quantity: 1 }),
          payloadItem(tumbler.productId, 25_000, { variantId: small.variantId, quantity: 2 }),
          payloadItem(masala.productId, 19_950, { quantity: 4 }),
        ],
      }),
    );
    assert.deepEqual(await stockOf(db, assam, masala, tumbler, small, large), [8, null, 3, null, 2]);
    const sources = await db.query<{ stock_source: string | null }>(
      "select stock_source from public.order_items where order_id = $1 order by position",
      [response.orderId],
    );
    assert.deepEqual(sources.map((s) => s.stock_source), ["product", "variant", "product", null]);
  });

  test("create_order() refuses an order that wants more than is left with OCQ09, every short item in its detail, and stores nothing", async () => {
    const store = await createTestStore(db);
    const [assam, masala, tumbler] = store.products.map((p) => ({ productId: p.id }));
    const large = { variantId: store.variants[1].id };
    await setStock(db, assam, 3);
    await setStock(db, large, 0);
    await setStock(db, tumbler, 100);
    const failure = await createOrderFailure(
      db,
      createOrderPayload(store, {
        items: [
          payloadItem(assam.productId, 34_900, { quantity: 2 }),
          payloadItem(masala.productId, 19_950, { quantity: 1 }),
          // a second line of the same product: together they want 4 of the 3 left
          payloadItem(assam.productId, 34_900, { quantity: 2 }),
          payloadItem(tumbler.productId, 29_900, { variantId: large.variantId, quantity: 1 }),
          payloadItem(tumbler.productId, 25_000, { variantId: store.variants[0].id, quantity: 1 }),
        ],
      }),
    );
    assert.equal(failure.code, "OCQ09");
    assert.deepEqual(JSON.parse(failure.detail!), [
      { index: 0, productId: assam.productId, variantId: null, available: 3 },
      { index: 2, productId: assam.productId, variantId: null, available: 3 },
      { index: 3, productId: tumbler.productId, variantId: large.variantId, available: 0 },
    ]);
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
    // the tumbler's stock was taken for item 4 before the refusal, and given back with the rollback
    assert.deepEqual(await stockOf(db, assam, large, tumbler), [3, 0, 100]);
  });

  test("create_order() decides variant required and prices before stock: a sold-out product ordered at a wrong price is PRICE_MISMATCH", async () => {
    const store = await createTestStore(db);
    const assam = { productId: store.products[0].id };
    const tumbler = { productId: store.products[2].id };
    await setStock(db, assam, 0);
    await setStock(db, tumbler, 0);
    const wrongPrice = createOrderPayload(store, {
      items: [payloadItem(assam.productId, 100, { quantity: 1 })],
    });
    assert.equal(
      (await createOrderFailure(db, { ...wrongPrice, totalMinor: 100, finalMinor: 103, feeMinor: 3 })).code,
      "OC400",
    );
    const noVariant = createOrderPayload(store, { items: [payloadItem(tumbler.productId, 25_000)] });
    assert.equal((await createOrderFailure(db, noVariant)).code, "OCV00");
    assert.equal(
      (await createOrderFailure(
        db,
        createOrderPayload(store, { items: [payloadItem(assam.productId, 34_900)] }),
      )).code,
      "OCQ09",
    );
  });

  test("POST create-order answers 409 OUT_OF_STOCK with { index, productId, variantId, available } for each short item", async () => {
    const store = await createTestStore(db);
    await setStock(db, { productId: store.products[0].id }, 1);
    const stack = await startTestStack({ db });
    try {
      const res = await stack.post(orderBody(store)); // 2 Assam Tea
      assert.equal(res.status, 409);
      assert.deepEqual(await res.json(), {
        success: false,
        error: {
          code: "OUT_OF_STOCK",
          message: "Not enough stock is left for an item",
          details: [{ index: 0, productId: store.products[0].id, variantId: null, available: 1 }],
        },
      });
      assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
      assert.equal(stack.mail.sent.length, 0);
    } finally {
      await stack.close();
    }
  });

  test("cancelling an order puts its stock back once, to the rows it came from: a second cancel changes nothing and cancelled is final", async () => {
    const store = await createTestStore(db);
    const [assam, , tumbler] = store.products.map((p) => ({ productId: p.id }));
    const [small, large] = store.variants.map((v) => ({ variantId: v.id }));
    await setStock(db, assam, 5);
    await setStock(db, large, 4);
    await setStock(db, tumbler, 6);
    const { response } = await callCreateOrder(
      db,
      createOrderPayload(store, {
        items: [
          payloadItem(assam.productId, 34_900, { quantity: 2 }),
          payloadItem(tumbler.productId, 29_900, { variantId: large.variantId, quantity: 1 }),
          payloadItem(tumbler.productId, 25_000, { variantId: small.variantId, quantity: 3 }),
        ],
      }),
    );
    assert.deepEqual(await stockOf(db, assam, large, tumbler), [3, 3, 3]);
    // the seller starts counting the small tumbler on its own: the cancel still returns the product's units
    await setStock(db, small, 10);
    const cancel = () =>
      db.asRole(
        "postgres", // the tables' owner: no API role updates orders
        (s) => s.query("update public.orders set status = 'cancelled' where id = $1", [response.orderId]),
      );
    await cancel();
    assert.deepEqual(await stockOf(db, assam, large, tumbler, small), [5, 4, 6, 10]);
    await cancel();
    assert.deepEqual(await stockOf(db, assam, large, tumbler, small), [5, 4, 6, 10]);
    await assert.rejects(
      db.asRole(
        "postgres", // the tables' owner: no API role updates orders
        (s) =>
          s.query("update public.orders set status = 'payment_pending' where id = $1", [response.orderId]),
      ),
      (error: { code?: string }) => error.code === "OCT01",
    );
    const history = await db.query<{ to_status: string }>(
      "select to_status from public.order_status_history where order_id = $1 order by id",
      [response.orderId],
    );
    assert.deepEqual(history.map((h) => h.to_status), ["payment_pending", "cancelled"]);
    assert.deepEqual(await stockOf(db, assam, large, tumbler, small), [5, 4, 6, 10]);
  });

  test("products and product_variants refuse a negative stock", async () => {
    const store = await createTestStore(db);
    for (const row of [{ productId: store.products[0].id }, { variantId: store.variants[0].id }]) {
      await assert.rejects(setStock(db, row, -1), (error: { code?: string }) => error.code === "23514");
    }
  });
}
