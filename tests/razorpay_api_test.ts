/**
 * The Razorpay adapter (`_shared/payments/razorpay_api.ts`) against the fake Razorpay over HTTP, and the
 * fake against Razorpay's own Node SDK and signature helpers (npm `razorpay`), which speak the real API: the
 * SDK's calls find the fake's paths and read its shapes, and its helpers accept the fake's signatures, so a
 * test passing here passes against api.razorpay.com too.
 */
import assert from "node:assert/strict";
import Razorpay from "razorpay";

/** The SDK's check of a signed body (its `validatePaymentVerification` checks `order_id|payment_id` with it). */
const validateWebhookSignature = (body: string, signature: string, secret: string): boolean =>
  Razorpay.validateWebhookSignature(body, signature, secret);
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import { isCheckoutSignature } from "../supabase/functions/_shared/payments/checkout_signature.ts";
import { isProviderRefusal } from "../supabase/functions/_shared/payments/payment_provider.ts";
import { razorpayApi, RazorpayApiError } from "../supabase/functions/_shared/payments/razorpay_api.ts";
import { type FakeFailure, type FakeRazorpay, startFakeRazorpay } from "./support/fake_razorpay.ts";

const test = (name: string, fn: (fake: FakeRazorpay) => Promise<void>) =>
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const fake = startFakeRazorpay();
      try {
        await fn(fake);
      } finally {
        await fake.close();
      }
    },
  });

const adapter = (fake: FakeRazorpay, overrides: { keySecret?: string; timeoutMs?: number } = {}) =>
  razorpayApi({
    keyId: fake.keyId,
    keySecret: overrides.keySecret ?? fake.keySecret,
    baseUrl: fake.url,
    timeoutMs: overrides.timeoutMs ?? 2_000,
  });

/** The adapter's failure: PAYMENT_PROVIDER_ERROR, with the Razorpay call's error as its cause. */
async function providerFailure(work: Promise<unknown>): Promise<RazorpayApiError> {
  const error = await work.then(() => assert.fail("the call succeeded"), (error) => error);
  assert.ok(error instanceof OrderError);
  assert.equal(error.code, "PAYMENT_PROVIDER_ERROR");
  assert.ok(error.cause instanceof RazorpayApiError);
  return error.cause;
}

const newOrder = {
  amountMinor: 71_545,
  currency: "INR",
  receipt: "ORD-2026-000001",
  notes: { orderId: "o1" },
};

test("razorpayApi().createOrder() posts /v1/orders with Basic auth and reads Razorpay's order entity", async (fake) => {
  const api = adapter(fake);
  const order = await api.createOrder(newOrder);
  assert.match(order.id, /^order_[A-Za-z0-9]{14}$/);
  assert.deepEqual(order, {
    id: order.id,
    amountMinor: 71_545,
    currency: "INR",
    receipt: "ORD-2026-000001",
    status: "created",
  });
  assert.deepEqual(fake.requests.at(-1), {
    operation: "orders.create",
    method: "POST",
    path: "/v1/orders",
    body: { amount: 71_545, currency: "INR", receipt: "ORD-2026-000001", notes: { orderId: "o1" } },
  });
  assert.deepEqual(await api.fetchOrder(order.id), order);
});

test("razorpayApi() maps a wrong key secret (401) to PAYMENT_PROVIDER_ERROR with Razorpay's description as the cause", async (fake) => {
  const cause = await providerFailure(adapter(fake, { keySecret: "wrong" }).createOrder(newOrder));
  assert.deepEqual([cause.operation, cause.status, cause.code], ["orders.create", 401, "BAD_REQUEST_ERROR"]);
  assert.match(cause.message, /Authentication failed/);
  assert.doesNotMatch(cause.message, /wrong/);
});

test("razorpayApi() maps an error answer and silence past the timeout to PAYMENT_PROVIDER_ERROR", async (fake) => {
  const api = adapter(fake, { timeoutMs: 300 });
  fake.fail("orders.create", "error", "hang");
  assert.equal((await providerFailure(api.createOrder(newOrder))).status, 500);
  const started = performance.now();
  const silent = await providerFailure(api.createOrder(newOrder));
  assert.deepEqual([silent.status, silent.code], [0, "TIMEOUT"]);
  assert.ok(performance.now() - started < 2_000, "the call gave up at its timeout");
  assert.equal(fake.ledger.orders.size, 0, "neither failed call made an order");
});

test("razorpayApi() reads a payment the fake checkout authorized, captures it, and refuses a second capture", async (fake) => {
  const api = adapter(fake);
  const order = await api.createOrder(newOrder);
  const paid = await fake.pay(order.id, { method: "upi", outcome: "authorized" });
  assert.ok(!("error" in paid));
  const payment = await api.fetchPayment(paid.razorpay_payment_id);
  assert.deepEqual(payment, {
    id: paid.razorpay_payment_id,
    orderId: order.id,
    amountMinor: 71_545,
    currency: "INR",
    status: "authorized",
    method: "upi",
  });
  const captured = await api.capturePayment(payment.id, { amountMinor: 71_545, currency: "INR" });
  assert.equal(captured.status, "captured");
  assert.equal((await api.fetchOrder(order.id)).status, "paid");
  const again = await providerFailure(
    api.capturePayment(payment.id, { amountMinor: 71_545, currency: "INR" }),
  );
  assert.equal(again.status, 400);
  assert.match(again.message, /already been captured/);
});

test("razorpayApi() creates a refund with receipt, notes and speed, lists it for its payment and fetches it", async (fake) => {
  const api = adapter(fake);
  const order = await api.createOrder(newOrder);
  const paid = await fake.pay(order.id, { method: "card" });
  assert.ok(!("error" in paid));
  assert.deepEqual(await api.listRefunds(paid.razorpay_payment_id), []);
  const refund = await api.createRefund(paid.razorpay_payment_id, {
    amountMinor: 71_545,
    receipt: "7f1c0000-0000-7000-8000-000000000001",
    notes: { orderId: "o1" },
    speed: "normal",
  });
  assert.match(refund.id, /^rfnd_/);
  assert.deepEqual(refund, {
    id: refund.id,
    paymentId: paid.razorpay_payment_id,
    amountMinor: 71_545,
    currency: "INR",
    receipt: "7f1c0000-0000-7000-8000-000000000001",
    status: "pending",
  });
  // Razorpay lists 10 refunds unless asked for more: every refund of the payment is on one page of 100
  assert.equal(
    fake.requests.findLast((r) => r.operation === "refunds.list")?.path,
    `/v1/payments/${paid.razorpay_payment_id}/refunds?count=100`,
  );
  assert.deepEqual(await api.listRefunds(paid.razorpay_payment_id), [refund]);
  assert.deepEqual(await api.fetchRefund(paid.razorpay_payment_id, refund.id), refund);
  // the whole payment is refunded: a second refund is refused, as Razorpay refuses it
  const second = await providerFailure(
    api.createRefund(paid.razorpay_payment_id, {
      amountMinor: 100,
      receipt: "r2",
      notes: {},
      speed: "normal",
    }),
  );
  assert.equal(second.status, 400);
});

test("razorpayApi() with act-then-fail: the refund exists at Razorpay though the call failed, and the list finds it by receipt", async (fake) => {
  const api = adapter(fake);
  const order = await api.createOrder(newOrder);
  const paid = await fake.pay(order.id);
  assert.ok(!("error" in paid));
  fake.fail("refunds.create", "act-then-fail");
  const failed = await providerFailure(
    api.createRefund(paid.razorpay_payment_id, {
      amountMinor: 71_545,
      receipt: "ours-1",
      notes: {},
      speed: "normal",
    }),
  );
  assert.equal(failed.status, 500);
  assert.deepEqual((await api.listRefunds(paid.razorpay_payment_id)).map((r) => r.receipt), ["ours-1"]);
});

test("the fake checkout's handler response carries the signature Razorpay's SDK and isCheckoutSignature() accept", async (fake) => {
  const order = await adapter(fake).createOrder(newOrder);
  const paid = await fake.pay(order.id);
  assert.ok(!("error" in paid));
  const { razorpay_order_id, razorpay_payment_id, razorpay_signature } = paid;
  assert.equal(
    validateWebhookSignature(
      `${razorpay_order_id}|${razorpay_payment_id}`,
      razorpay_signature,
      fake.keySecret,
    ),
    true,
  );
  assert.equal(
    await isCheckoutSignature(razorpay_order_id, razorpay_payment_id, razorpay_signature, fake.keySecret),
    true,
  );
  assert.equal(
    await isCheckoutSignature(razorpay_order_id, "pay_other", razorpay_signature, fake.keySecret),
    false,
  );
  assert.equal(
    await isCheckoutSignature(razorpay_order_id, razorpay_payment_id, razorpay_signature, "other"),
    false,
  );
});

test("the fake's webhooks are signed as Razorpay's SDK checks them, and name the captured payment", async () => {
  const seen: { body: string; signature: string | null; eventId: string | null }[] = [];
  const receiver = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    seen.push({
      body: await request.text(),
      signature: request.headers.get("x-razorpay-signature"),
      eventId: request.headers.get("x-razorpay-event-id"),
    });
    return new Response("ok");
  });
  const fake = startFakeRazorpay({ webhookUrl: `http://127.0.0.1:${receiver.addr.port}/` });
  try {
    const order = await adapter(fake).createOrder(newOrder);
    const paid = await fake.pay(order.id, { method: "wallet" });
    assert.ok(!("error" in paid));
    await fake.webhooks.settled();
    // Razorpay does not promise an order between events, and the fake sends them at once.
    assert.deepEqual(seen.map((s) => JSON.parse(s.body).event).sort(), ["order.paid", "payment.captured"]);
    for (const delivery of seen) {
      assert.equal(validateWebhookSignature(delivery.body, delivery.signature!, fake.webhookSecret), true);
      assert.match(delivery.eventId!, /^evt_[A-Za-z0-9]{14}$/);
      const payment = JSON.parse(delivery.body).payload.payment.entity;
      assert.deepEqual([payment.id, payment.status, payment.method, payment.amount], [
        paid.razorpay_payment_id,
        "captured",
        "wallet",
        71_545,
      ]);
    }
    assert.deepEqual(JSON.parse(seen[1].body).payload.order.entity.notes, { orderId: "o1" });
  } finally {
    await fake.close();
    await receiver.shutdown();
  }
});

test("Razorpay's Node SDK creates, fetches, captures and refunds on the fake's paths", async (fake) => {
  const sdk = new Razorpay({ key_id: fake.keyId, key_secret: fake.keySecret });
  // the SDK's one host setting: its axios instance's base URL
  (sdk as unknown as { api: { rq: { defaults: { baseURL: string } } } }).api.rq.defaults.baseURL = fake.url;
  const order = await sdk.orders.create({
    amount: 50_000,
    currency: "INR",
    receipt: "rcpt-1",
    notes: { a: "b" },
  });
  assert.equal((await sdk.orders.fetch(order.id)).amount_due, 50_000);
  const paid = await fake.pay(order.id, { outcome: "authorized", method: "netbanking" });
  assert.ok(!("error" in paid));
  const payment = await sdk.payments.fetch(paid.razorpay_payment_id);
  assert.deepEqual([payment.status, payment.method, payment.bank], ["authorized", "netbanking", "HDFC"]);
  assert.equal((await sdk.payments.capture(payment.id, 50_000, "INR")).status, "captured");
  const refund = await sdk.payments.refund(payment.id, { amount: 20_000, speed: "normal", receipt: "r-1" });
  assert.equal(refund.status, "pending");
  const list = await sdk.payments.fetchMultipleRefund(payment.id, { count: 100 });
  assert.deepEqual(list.items.map((r: { id: string }) => r.id), [refund.id]);
  assert.equal((await sdk.payments.fetchRefund(payment.id, refund.id)).receipt, "r-1");
  assert.equal((await sdk.payments.fetch(payment.id)).refund_status, "partial");
});

test("razorpayApi() marks a 4xx answer as Razorpay's refusal of that one request, but not 401, 408, 429, 5xx or silence", async (fake) => {
  const api = adapter(fake, { timeoutMs: 300 });
  const answers: [FakeFailure, boolean][] = [
    [{ status: 400, description: "The payment has been fully refunded already" }, true],
    [{ status: 404, description: "The requested URL was not found on the server." }, true],
    [{ status: 401, description: "Authentication failed" }, false],
    [{ status: 408, description: "Request timed out" }, false],
    [{ status: 429, description: "Too many requests" }, false],
    ["error", false],
    ["hang", false],
  ];
  for (const [answer, refused] of answers) {
    fake.fail("refunds.list", answer);
    const failure = await api.listRefunds("pay_Unknown0000001").then(() => null, (error) => error);
    assert.equal(isProviderRefusal(failure), refused, JSON.stringify(answer));
    assert.equal((failure.cause as RazorpayApiError).refused, refused);
  }
});
