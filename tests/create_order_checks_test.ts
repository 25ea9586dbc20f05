/**
 * create_order's checks beyond the happy path: numbering past a million, the idempotency hash compared
 * with null in mind, VARIANT_REQUIRED after the 404s, the too-large total decided after the catalogue,
 * and the caller's deadline.
 */
import assert from "node:assert/strict";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import {
  callCreateOrder,
  createOrderFailure,
  createOrderPayload,
  NO_ROWS,
  payloadItem,
  storeRowCounts,
} from "./support/create_order_payload.ts";
import { sharedPostgres, testDatabases } from "./support/databases.ts";
import { holdLock } from "./support/postgres_faults.ts";
import type { SqlDatabase } from "../local/sql_database.ts";

/** Adds a product to `store` at `price` (with `variants` of their own price, active or not); returns its id. */
async function _addProduct(
  db: SqlDatabase,
  store: TestStore,
  price: string,
  variants: { active: boolean }[] = [],
): Promise<string> {
  const id = crypto.randomUUID();
  await db.query("insert into public.products (id, store_id, name, price) values ($1, $2, 'Extra', $3)", [
    id,
    store.storeId,
    price,
  ]);
  for (const variant of variants) {
    await db.query(
      "insert into public.product_variants (product_id, name, is_active) values ($1, 'Only size', $2)",
      [id, variant.active],
    );
  }
  return id;
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  // pins a past bug: lpad cut 1000000 to 100000, a duplicate, and every later order of the year failed
  test("create_order() numbers the millionth order of a year ORD-<year>-1000000 and goes on from there", async () => {
    const store = await createTestStore(db);
    const year = new Date().getUTCFullYear();
    await db.query(
      "insert into public.order_counters (store_id, year, last_sequence) values ($1, $2, 999999)",
      [
        store.storeId,
        year,
      ],
    );
    const numbers = [];
    for (let i = 0; i < 2; i++) {
      numbers.push((await callCreateOrder(db, createOrderPayload(store))).response.orderNumber);
    }
    assert.deepEqual(numbers, [`ORD-${year}-1000000`, `ORD-${year}-1000001`]);
  });

  // pins a past bug: "<>" with a null hash is null, and the key replayed the first order for any body
  test("create_order() refuses an idempotency key sent without a request hash instead of replaying it", async () => {
    const store = await createTestStore(db);
    const key = `null-hash-${crypto.randomUUID()}`;
    await callCreateOrder(
      db,
      createOrderPayload(store, { idempotency: { key, requestHash: "e".repeat(64) } }),
    );
    const failure = await createOrderFailure(
      db,
      createOrderPayload(store, { idempotency: { key, requestHash: null as unknown as string } }),
    );
    assert.equal(failure.code, "OCI22");
  });

  test("create_order() answers VARIANT_REQUIRED with { index, productId } for a product with variants ordered without one", async () => {
    const store = await createTestStore(db);
    const failure = await createOrderFailure(
      db,
      createOrderPayload(store, {
        items: [payloadItem(store.products[0].id, 34_900), payloadItem(store.products[2].id, 25_000)],
      }),
    );
    assert.equal(failure.code, "OCV00");
    assert.deepEqual(JSON.parse(failure.detail!), { index: 1, productId: store.products[2].id });
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("create_order() decides VARIANT_REQUIRED after every 404 and before the prices", async (t) => {
    const store = await createTestStore(db);
    const tumbler = payloadItem(store.products[2].id, 25_000);
    const cases: [string, ReturnType<typeof payloadItem>[], string][] = [
      ["an unknown product after it: 404", [tumbler, payloadItem(crypto.randomUUID(), 100)], "OCP04"],
      ["an unknown variant after it: 404", [
        tumbler,
        payloadItem(store.products[2].id, 25_000, { variantId: crypto.randomUUID() }),
      ], "OCV04"],
      ["a wrong price before it: VARIANT_REQUIRED", [payloadItem(store.products[0].id, 1), tumbler], "OCV00"],
    ];
    for (const [title, items, code] of cases) {
      await t.step(title, async () => {
        assert.equal((await createOrderFailure(db, createOrderPayload(store, { items }))).code, code);
      });
    }
  });

  test("create_order() sells a product whose variants are all inactive without a variant", async () => {
    const store = await createTestStore(db);
    const productId = await _addProduct(db, store, "40.00", [{ active: false }]);
    const { response } = await callCreateOrder(
      db,
      createOrderPayload(store, { items: [payloadItem(productId, 4_000)] }),
    );
    assert.equal(response.totalAmount, 40);
  });

  test("create_order() decides a total too large for numeric(12,2) after the catalogue, never from submitted prices", async (t) => {
    const store = await createTestStore(db);
    const dear = await _addProduct(db, store, "9999999999.99");
    const huge = 999_999_999_999;
    const cases: [string, ReturnType<typeof payloadItem>[], string][] = [
      ["an unknown product at a huge price: PRODUCT_NOT_FOUND", [
        payloadItem(crypto.randomUUID(), huge, { quantity: 10_000 }),
      ], "OCP04"],
      ["a cheap product at a huge price: PRICE_MISMATCH", [
        payloadItem(store.products[0].id, huge, { quantity: 10_000 }),
      ], "OC400"],
      [
        "the catalogue's own price, too many: AMOUNT_TOO_LARGE",
        [payloadItem(dear, huge, { quantity: 2 })],
        "OCA03",
      ],
    ];
    for (const [title, items, code] of cases) {
      await t.step(title, async () => {
        assert.equal((await createOrderFailure(db, createOrderPayload(store, { items }))).code, code);
      });
    }
    // one of them fits: 9,999,999,999.99 paid by UPI direct, no fee
    const { response } = await callCreateOrder(
      db,
      createOrderPayload(store, {
        items: [payloadItem(dear, huge)],
        paymentMethod: "upi_direct",
        gatewayMethod: null,
        paymentProofUrl: "https://proofs.example.com/1.png",
        feeMinor: 0,
        finalMinor: huge,
      }),
    );
    assert.equal(response.finalAmount, 9_999_999_999.99);
  });

  test("create_order() refuses a call that starts past its deadline and stores nothing", async () => {
    const store = await createTestStore(db);
    const failure = await createOrderFailure(
      db,
      { ...createOrderPayload(store), deadline: new Date(Date.now() - 1_000).toISOString() },
    );
    assert.equal(failure.code, "OCT00");
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });
}

const postgres = await sharedPostgres();
Deno.test({
  name: "[postgres] create_order() gives up waiting for a locked counter row at its deadline (lock_timeout)",
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = postgres!;
    const store = await createTestStore(db);
    await callCreateOrder(db, createOrderPayload(store));
    const lock = await holdLock(db, "select * from public.order_counters where store_id = $1 for update", [
      store.storeId,
    ]);
    let failure;
    try {
      const deadline = new Date(Date.now() + 300).toISOString();
      failure = await Promise.race([
        createOrderFailure(db, { ...createOrderPayload(store), deadline }),
        new Promise<{ code: string }>((resolve) =>
          setTimeout(() => resolve({ code: "still waiting" }), 5_000)
        ),
      ]);
    } finally {
      await lock.release();
    }
    assert.equal(failure.code, "55P03"); // lock_not_available: it did not wait for the release
    assert.equal((await storeRowCounts(db, store.storeId)).orders, 1);
  },
});
