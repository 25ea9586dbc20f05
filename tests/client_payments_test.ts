/**
 * The client's payment calls (`startPayment`, `verifyPayment`) against the real local stack and its fake
 * Razorpay, through supabase-js as a storefront makes them: each answer as a value, each failure with its
 * code, status and typed details.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { createOrder, startPayment, verifyPayment } from "../client/mod.ts";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const db = await sharedPglite();

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name: `[pglite] ${name}`, sanitizeOps: false, sanitizeResources: false, fn });

async function withClient(
  fn: (
    supabase: ReturnType<typeof createClient>,
    stack: Awaited<ReturnType<typeof startTestStack>>,
  ) => Promise<void>,
) {
  const stack = await startTestStack({ db });
  try {
    await fn(createClient(stack.url, stack.anonKey, { auth: { persistSession: false } }), stack);
  } finally {
    await stack.close();
  }
}

async function placeGatewayOrder(supabase: ReturnType<typeof createClient>, paymentMethod = "gateway") {
  const store = await createTestStore(db);
  const placed = await createOrder(supabase, {
    storeId: store.storeId,
    buyerEmail: "asha@example.com",
    buyerName: "Asha Rao",
    buyerPhone: "+91 98765 43210",
    shippingAddress: { line1: "12 MG Road", city: "Pune", state: "MH", postalCode: "411001", country: "IN" },
    items: [{ productId: store.products[1].id, quantity: 2, price: 199.5 }],
    ...(paymentMethod === "gateway"
      ? { paymentMethod: "gateway", gatewayMethod: "wallet" }
      : { paymentMethod: "upi_direct", paymentProofUrl: "https://proof.example/1.png" }),
  });
  assert.ok(placed.ok);
  return placed.order;
}

test("startPayment() answers the Razorpay order Checkout opens, and verifyPayment() the decision after the checkout paid it", async () => {
  await withClient(async (supabase, stack) => {
    const order = await placeGatewayOrder(supabase);
    const started = await startPayment(supabase, { orderId: order.orderId });
    assert.ok(started.ok);
    assert.deepEqual(
      { ...started.payment, providerOrderId: started.payment.providerOrderId.slice(0, 6) },
      {
        success: true,
        orderId: order.orderId,
        orderNumber: order.orderNumber,
        provider: "razorpay",
        keyId: stack.razorpay!.keyId,
        providerOrderId: "order_",
        amount: 40_698,
        currency: "INR",
        method: "wallet",
        storeName: "Test Store",
      },
    );
    const answer = await stack.razorpay!.pay(started.payment.providerOrderId, { method: "wallet" });
    assert.ok(!("error" in answer));
    const verified = await verifyPayment(supabase, {
      orderId: order.orderId,
      razorpayOrderId: answer.razorpay_order_id,
      razorpayPaymentId: answer.razorpay_payment_id,
      razorpaySignature: answer.razorpay_signature,
    });
    assert.ok(verified.ok);
    assert.equal(verified.verification.status, "paid");
    assert.ok(["paid", "already_paid"].includes(verified.verification.outcome));
    await stack.razorpay!.webhooks.settled();
  });
});

test("startPayment() reads ORDER_NOT_PAYABLE's typed details, and verifyPayment() PAYMENT_SIGNATURE_INVALID", async () => {
  await withClient(async (supabase) => {
    const order = await placeGatewayOrder(supabase, "upi_direct");
    const refused = await startPayment(supabase, { orderId: order.orderId });
    assert.ok(!refused.ok);
    assert.equal(refused.status, 409);
    if (refused.code !== "ORDER_NOT_PAYABLE") assert.fail(refused.code);
    assert.deepEqual(refused.details, { status: "payment_pending", paymentMethod: "upi_direct" });
    const forged = await verifyPayment(supabase, {
      orderId: order.orderId,
      razorpayOrderId: "order_Forged00000001",
      razorpayPaymentId: "pay_Forged000000001",
      razorpaySignature: "0".repeat(64),
    });
    assert.ok(!forged.ok);
    assert.deepEqual([forged.status, forged.code, forged.details], [
      400,
      "PAYMENT_SIGNATURE_INVALID",
      undefined,
    ]);
    assert.ok(forged.requestId);
  });
});

test("startPayment() answers NETWORK_ERROR when nothing answers, and refuses a missing client with a TypeError", async () => {
  const supabase = createClient("http://127.0.0.1:9", "key", { auth: { persistSession: false } });
  const result = await startPayment(supabase, { orderId: crypto.randomUUID() });
  assert.ok(!result.ok);
  assert.deepEqual([result.code, result.status], ["NETWORK_ERROR", 0]);
  await assert.rejects(
    // deno-lint-ignore no-explicit-any
    () => startPayment(undefined as any, { orderId: "x" }),
    TypeError,
  );
});
