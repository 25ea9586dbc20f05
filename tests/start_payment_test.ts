/**
 * start-payment over HTTP on the local stack, against the fake Razorpay it calls as it would call
 * Razorpay: one Razorpay order per order (created once, then answered from the database, also to racing
 * first calls), nothing kept when Razorpay fails or is silent, and the contract's refusals.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { CARD_ORDER_PAISE, placeOrder, postFunction, startPayment } from "./support/payments.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload, payloadItem } from "./support/create_order_payload.ts";

function keptRows(db: SqlDatabase, orderId: string) {
  return db.query<{ provider_order_id: string }>(
    "select provider_order_id from public.payment_provider_orders where order_id = $1",
    [orderId],
  );
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST start-payment answers 200 with what Checkout opens: a Razorpay order for the final amount in paise, the order number as receipt, notes { orderId, storeId }", async () => {
    const stack = await startTestStack({ db });
    try {
      const { orderId, orderNumber, storeId } = await placeOrder(db, "upi");
      const response = await postFunction(stack, "start-payment", { orderId });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("cache-control"), "no-store");
      const body = await response.json();
      const fake = stack.razorpay!;
      const [created] = [...fake.ledger.orders.values()];
      assert.deepEqual(body, {
        success: true,
        orderId,
        orderNumber,
        provider: "razorpay",
        keyId: fake.keyId,
        providerOrderId: created.id,
        amount: 71_196,
        currency: "INR",
        method: "upi",
        storeName: "Chai & Co",
      });
      assert.deepEqual(fake.requests.map((r) => [r.operation, r.body]), [
        ["orders.create", {
          amount: 71_196,
          currency: "INR",
          receipt: orderNumber,
          notes: { orderId, storeId },
        }],
      ]);
      assert.deepEqual(await keptRows(db, orderId), [{ provider_order_id: created.id }]);
    } finally {
      await stack.close();
    }
  });

  test("a later POST start-payment answers the kept Razorpay order without calling Razorpay", async () => {
    const stack = await startTestStack({ db });
    try {
      const { orderId } = await placeOrder(db);
      const first = await startPayment(stack, orderId);
      const second = await startPayment(stack, orderId);
      assert.deepEqual(second, first);
      assert.equal(first.amount, CARD_ORDER_PAISE);
      assert.equal(stack.razorpay!.requests.filter((r) => r.operation === "orders.create").length, 1);
    } finally {
      await stack.close();
    }
  });

  test("two racing first POST start-payment calls may both call Razorpay, and both answer the one Razorpay order kept", async () => {
    const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "0" } });
    try {
      let bothCalled = 0;
      for (let round = 0; round < 10; round++) {
        const { orderId } = await placeOrder(db);
        const before = stack.razorpay!.requests.length;
        const [a, b] = await Promise.all([startPayment(stack, orderId), startPayment(stack, orderId)]);
        assert.equal(a.providerOrderId, b.providerOrderId);
        assert.deepEqual(await keptRows(db, orderId), [{ provider_order_id: a.providerOrderId }]);
        if (stack.razorpay!.requests.length - before === 2) bothCalled++;
      }
      // the race is real on PostgreSQL: at least once both calls reached Razorpay before either kept
      if (name === "postgres") assert.ok(bothCalled > 0, "no round raced");
    } finally {
      await stack.close();
    }
  });

  test("POST start-payment answers 409 ORDER_NOT_PAYABLE { status, paymentMethod } for a gateway order below Razorpay's minimum of ₹1.00 (a ₹0 item, a ₹0.97 one: ₹0.99 with its fee), calling Razorpay for neither", async () => {
    const stack = await startTestStack({ db });
    try {
      for (const price of ["0.00", "0.97"]) {
        const store = await createTestStore(db);
        const [{ id }] = await db.query<{ id: string }>(
          "insert into public.products (store_id, name, price) values ($1, 'Free sample', $2) returning id::text",
          [store.storeId, price],
        );
        const minor = Math.round(Number(price) * 100);
        const { response: order } = await callCreateOrder(
          db,
          createOrderPayload(store, { items: [payloadItem(id, minor)] }),
        );
        assert.ok(order.finalAmount < 1, `final amount ${order.finalAmount}`);
        const refused = await postFunction(stack, "start-payment", { orderId: order.orderId });
        assert.equal(refused.status, 409, price);
        assert.deepEqual((await refused.json()).error, {
          code: "ORDER_NOT_PAYABLE",
          message: "This order's amount is below the smallest the gateway takes (₹1.00)",
          details: { status: "payment_pending", paymentMethod: "gateway" },
        });
      }
      assert.deepEqual(stack.razorpay!.requests, []);
    } finally {
      await stack.close();
    }
  });

  test("POST start-payment answers 404 ORDER_NOT_FOUND for an unknown order and 409 ORDER_NOT_PAYABLE { status, paymentMethod } for one that takes no gateway payment, calling Razorpay for neither", async () => {
    const stack = await startTestStack({ db });
    try {
      const unknown = crypto.randomUUID();
      const missing = await postFunction(stack, "start-payment", { orderId: unknown });
      assert.equal(missing.status, 404);
      assert.deepEqual((await missing.json()).error, {
        code: "ORDER_NOT_FOUND",
        message: "No order with this orderId",
        details: { orderId: unknown },
      });
      const upiDirect = await placeOrder(db, "upi_direct");
      const cancelled = await placeOrder(db);
      await db.asRole(
        "service_role",
        (s) =>
          s.query("select public.update_order_status('cancelled', $1, null, null, 'out of stock')", [
            cancelled.orderId,
          ]),
      );
      const paid = await placeOrder(db);
      await db.asRole(
        "service_role",
        (s) => s.query("select public.update_order_status('paid', $1)", [paid.orderId]),
      );
      const cases: [string, string, unknown][] = [
        ["upi_direct", upiDirect.orderId, { status: "payment_pending", paymentMethod: "upi_direct" }],
        ["cancelled", cancelled.orderId, { status: "cancelled", paymentMethod: "gateway" }],
        ["paid", paid.orderId, { status: "paid", paymentMethod: "gateway" }],
      ];
      for (const [label, orderId, details] of cases) {
        const response = await postFunction(stack, "start-payment", { orderId });
        assert.equal(response.status, 409, label);
        const { error } = await response.json();
        assert.deepEqual([error.code, error.details], ["ORDER_NOT_PAYABLE", details], label);
      }
      assert.equal(stack.razorpay!.requests.length, 0);
    } finally {
      await stack.close();
    }
  });

  test("POST start-payment answers 502 PAYMENT_PROVIDER_ERROR and keeps nothing when Razorpay errors or is silent past PAYMENT_PROVIDER_TIMEOUT_MS; the next call opens it", async () => {
    const stack = await startTestStack({ db, env: { PAYMENT_PROVIDER_TIMEOUT_MS: "300" } });
    try {
      const { orderId } = await placeOrder(db);
      stack.razorpay!.fail("orders.create", "error", "hang", "act-then-fail");
      for (const failure of ["error", "hang", "act-then-fail"]) {
        const started = performance.now();
        const response = await postFunction(stack, "start-payment", { orderId });
        assert.equal(response.status, 502, failure);
        assert.deepEqual((await response.json()).error, {
          code: "PAYMENT_PROVIDER_ERROR",
          message: "The payment provider answered an error or did not answer in time; nothing was kept",
        });
        assert.ok(performance.now() - started < 3_000, `${failure}: answered within the provider's timeout`);
        assert.deepEqual(await keptRows(db, orderId), [], failure);
      }
      // act-then-fail left a Razorpay order nobody keeps: harmless, it is never opened
      const opened = await startPayment(stack, orderId);
      assert.deepEqual(await keptRows(db, orderId), [{ provider_order_id: opened.providerOrderId }]);
    } finally {
      await stack.close();
    }
  });

  test("POST start-payment answers 503 PAYMENT_PROVIDER_NOT_CONFIGURED without Razorpay's keys, before reading the order", async () => {
    const stack = await startTestStack({ db, env: { RAZORPAY_API_URL: "http://127.0.0.1:9" } });
    try {
      const { orderId } = await placeOrder(db);
      const response = await postFunction(stack, "start-payment", { orderId });
      assert.equal(response.status, 503);
      assert.equal((await response.json()).error.code, "PAYMENT_PROVIDER_NOT_CONFIGURED");
      assert.equal(stack.rpcCalls.get("begin_payment") ?? 0, 0);
    } finally {
      await stack.close();
    }
  });

  test("POST start-payment answers 401 without a key, 405 to GET, 400 to an unknown field or a bad id, 413 past 64 KiB, and 429 with Retry-After past the per-IP limit", async () => {
    const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "3" } });
    try {
      const { orderId } = await placeOrder(db);
      const url = `${stack.url}/functions/v1/start-payment`;
      const noKey = await fetch(url, { method: "POST", body: JSON.stringify({ orderId }) });
      assert.deepEqual([noKey.status, noKey.headers.get("www-authenticate")], [401, "Bearer"]);
      await noKey.body?.cancel();
      const get = await fetch(url, { headers: { apikey: stack.anonKey } });
      assert.deepEqual([get.status, get.headers.get("allow")], [405, "POST, OPTIONS"]);
      await get.body?.cancel();
      const unknownField = await postFunction(stack, "start-payment", { orderId, amount: 1 });
      assert.deepEqual((await unknownField.json()).error.details, [{
        path: "amount",
        message: "unknown field",
      }]);
      const badId = await postFunction(stack, "start-payment", { orderId: "ORD-2026-000001" });
      assert.deepEqual((await badId.json()).error.details, [{
        path: "orderId",
        message: "orderId must be a UUID",
      }]);
      const large = await postFunction(
        stack,
        "start-payment",
        JSON.stringify({ orderId, pad: "x".repeat(70_000) }),
      );
      assert.equal(large.status, 413);
      await large.body?.cancel();
      // a client of its own (the proxy's header), so the calls of other tests do not count
      const client = {
        "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250)}-${orderId.slice(-6)}`,
      };
      for (let i = 0; i < 3; i++) {
        const opened = await postFunction(stack, "start-payment", { orderId }, client);
        assert.equal(opened.status, 200);
        await opened.body?.cancel();
      }
      const limited = await postFunction(stack, "start-payment", { orderId }, client);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
      assert.deepEqual((await limited.json()).error, {
        code: "RATE_LIMITED",
        message: "Too many payment calls from this client; retry later",
      });
    } finally {
      await stack.close();
    }
  });
}
