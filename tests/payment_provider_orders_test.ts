/**
 * The payment orders in the database (`begin_payment`, `keep_provider_order`, the payment_provider_orders
 * table): one provider order kept per order whatever races, kept only while the order awaits a gateway
 * payment and only for its own amount, and every payment call counted per client IP.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";

/** Two Assam Tea by card: 698.00 + 2.5 % = 715.45, so 71,545 paise. */
const FINAL_PAISE = 71_545;

async function gatewayOrder(db: SqlDatabase, overrides: Parameters<typeof createOrderPayload>[1] = {}) {
  const store = await createTestStore(db, { name: "Chai & Co" });
  const { response } = await callCreateOrder(db, createOrderPayload(store, overrides));
  return { orderId: response.orderId, orderNumber: response.orderNumber, storeId: store.storeId };
}

function keep(db: SqlDatabase, orderId: string, providerOrderId: string, amountMinor = FINAL_PAISE) {
  return db.asRole("service_role", async (session) => {
    const [{ kept }] = await session.query<{ kept: unknown }>(
      `select public.keep_provider_order($1, 'razorpay', $2, $3, 'INR', now() + interval '5 seconds') as kept`,
      [orderId, providerOrderId, amountMinor],
    );
    return typeof kept === "string" ? JSON.parse(kept) : kept;
  });
}

function begin(db: SqlDatabase, orderId: string, clientIp = "198.51.100.9", limit = 0) {
  return db.asRole("service_role", async (session) => {
    const [{ start }] = await session.query<{ start: unknown }>(
      "select public.begin_payment($1, $2, $3, 3600, now() + interval '5 seconds') as start",
      [orderId, clientIp, limit],
    );
    return typeof start === "string" ? JSON.parse(start) : start;
  });
}

async function failure(work: Promise<unknown>): Promise<{ code: string; detail?: string }> {
  const error = await work.then(() => assert.fail("the call succeeded"), (error) => error);
  return { code: error.code, detail: error.detail };
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("keep_provider_order() keeps the first provider order of an order and answers it to every later call", async () => {
    const { orderId } = await gatewayOrder(db);
    const kept = {
      provider: "razorpay",
      providerOrderId: "order_First0000000001",
      amountMinor: FINAL_PAISE,
      currency: "INR",
    };
    assert.deepEqual(await keep(db, orderId, "order_First0000000001"), kept);
    assert.deepEqual(await keep(db, orderId, "order_Second000000002"), kept);
    const rows = await db.query(
      "select provider_order_id, amount::text from public.payment_provider_orders where order_id = $1",
      [orderId],
    );
    assert.deepEqual(rows, [{ provider_order_id: "order_First0000000001", amount: "715.45" }]);
  });

  test("two racing first keep_provider_order() calls keep one provider order, and both answer it", async () => {
    for (let round = 0; round < 10; round++) {
      const { orderId } = await gatewayOrder(db);
      const answers = await Promise.all([
        keep(db, orderId, `order_RaceA${round}`),
        keep(db, orderId, `order_RaceB${round}`),
      ]);
      assert.equal(answers[0].providerOrderId, answers[1].providerOrderId);
      const rows = await db.query<{ provider_order_id: string }>(
        "select provider_order_id from public.payment_provider_orders where order_id = $1",
        [orderId],
      );
      assert.deepEqual(rows.map((row) => row.provider_order_id), [answers[0].providerOrderId]);
    }
  });

  test("keep_provider_order() refuses (OCY09, with status and payment method) an order that does not await a gateway payment", async () => {
    const upiDirect = await gatewayOrder(db, {
      paymentMethod: "upi_direct",
      gatewayMethod: null,
      paymentProofUrl: "https://proof.example/1.png",
      feeMinor: 0,
      finalMinor: 69_800,
    });
    const refused = await failure(keep(db, upiDirect.orderId, "order_Upi", 69_800));
    assert.equal(refused.code, "OCY09");
    assert.deepEqual(JSON.parse(refused.detail!), { status: "payment_pending", paymentMethod: "upi_direct" });
    const cancelled = await gatewayOrder(db);
    await db.asRole(
      "service_role",
      (s) =>
        s.query("select public.update_order_status('cancelled', $1, null, null, 'the buyer asked')", [
          cancelled.orderId,
        ]),
    );
    assert.equal((await failure(keep(db, cancelled.orderId, "order_Cancelled"))).code, "OCY09");
    const count = await db.query(
      "select 1 from public.payment_provider_orders where order_id = any($1::uuid[])",
      [[
        upiDirect.orderId,
        cancelled.orderId,
      ]],
    );
    assert.equal(count.length, 0);
  });

  test("keep_provider_order() refuses (OCN00) a provider order of another amount, and (OCO04) an unknown order", async () => {
    const { orderId } = await gatewayOrder(db);
    assert.equal((await failure(keep(db, orderId, "order_Cheap", 100))).code, "OCN00");
    assert.equal((await failure(keep(db, crypto.randomUUID(), "order_Nobody"))).code, "OCO04");
    assert.equal((await failure(keep(db, orderId, "order\nforged"))).code, "OCN00");
  });

  test("begin_payment() answers the order's payment facts, its store's name and the kept provider order", async () => {
    const { orderId, orderNumber, storeId } = await gatewayOrder(db);
    assert.deepEqual(await begin(db, orderId), {
      order: {
        orderId,
        orderNumber,
        storeId,
        storeName: "Chai & Co",
        status: "payment_pending",
        paymentMethod: "gateway",
        gatewayMethod: "card",
        finalAmountMinor: FINAL_PAISE,
        currency: "INR",
      },
      providerOrder: null,
    });
    await keep(db, orderId, "order_Kept");
    assert.deepEqual((await begin(db, orderId)).providerOrder, {
      provider: "razorpay",
      providerOrderId: "order_Kept",
      amountMinor: FINAL_PAISE,
      currency: "INR",
    });
    assert.deepEqual(await begin(db, "not-a-uuid"), { order: null, providerOrder: null });
  });

  test("begin_payment() counts every call per client IP, unknown orders included, and answers OCR29 with retryAfterSeconds past the limit", async () => {
    const { orderId } = await gatewayOrder(db);
    const ip = `192.0.2.${Math.floor(Math.random() * 250)}-${crypto.randomUUID().slice(0, 6)}`;
    await begin(db, orderId, ip, 3);
    await begin(db, crypto.randomUUID(), ip, 3);
    await begin(db, orderId, ip, 3);
    const limited = await failure(begin(db, orderId, ip, 3));
    assert.equal(limited.code, "OCR29");
    const retryAfter = JSON.parse(limited.detail!).retryAfterSeconds;
    assert.ok(retryAfter >= 1 && retryAfter <= 3600, `retry after ${retryAfter}`);
    // another client is not held back, and an unknown IP is not counted
    assert.equal((await begin(db, orderId, `${ip}-other`, 3)).order.orderId, orderId);
    for (let i = 0; i < 5; i++) await begin(db, orderId, "", 3);
  });
}
