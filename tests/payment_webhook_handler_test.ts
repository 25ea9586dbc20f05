/**
 * paymentWebhookHandler() called with a Request, no server: the order of its steps (secret, signature, then
 * parsing) with a ledger that records what reaches it. What reaches the database is tested over HTTP in
 * payment_webhook_test.ts.
 */
import assert from "node:assert/strict";
import { parseConfig, RAZORPAY_ANSWER_LIMIT_MS } from "../supabase/functions/_shared/config.ts";
import { ANSWER_GRACE_MS } from "../supabase/functions/_shared/orders/database_call.ts";
import type {
  ConfirmationResult,
  PaymentConfirmation,
  PaymentLedger,
} from "../supabase/functions/_shared/payments/payment_confirmation.ts";
import { paymentWebhookHandler } from "../supabase/functions/payment-webhook/handler.ts";
import { capturingLogger } from "./support/log_capture.ts";
import { paymentCapturedEvent, razorpayHeaders } from "./support/razorpay_events.ts";

const SECRET = "whsec_handler_test";
const ORDER_ID = "0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77";

function recordingLedger(): PaymentLedger & { seen: PaymentConfirmation[]; deadlines: Date[] } {
  const seen: PaymentConfirmation[] = [];
  const deadlines: Date[] = [];
  return {
    seen,
    deadlines,
    confirmPayment(confirmation, { deadline }): Promise<ConfirmationResult> {
      seen.push(confirmation);
      deadlines.push(deadline);
      return Promise.resolve({
        replayed: false,
        outcome: "paid",
        orderId: confirmation.orderId,
        orderNumber: "ORD-2026-000001",
        orderStatus: "paid",
        refundDue: false,
        method: confirmation.method,
        feeShortfall: 0,
        refund: null,
        emails: [],
      });
    },
  };
}

function handler(
  secret: string | null,
  ledger: PaymentLedger,
  log = capturingLogger(),
  options: { paymentWebhookTimeoutMs?: number; clock?: () => Date } = {},
) {
  return paymentWebhookHandler({
    config: {
      apiKeys: { public: ["anon"], service: ["service"] },
      allowedOrigins: ["*"],
      paymentWebhookTimeoutMs: options.paymentWebhookTimeoutMs ?? 2500,
      razorpayWebhookSecret: secret,
    },
    clock: options.clock ?? (() => new Date()),
    payments: ledger,
    refunds: { recordEvent: () => Promise.reject(new Error("no refund event in these tests")) },
    sendEmails: () => Promise.resolve(),
    waitUntil: () => {},
    log,
  });
}

async function signedRequest(body: string, secret = SECRET): Promise<Request> {
  return new Request("http://localhost/functions/v1/payment-webhook", {
    method: "POST",
    headers: await razorpayHeaders(body, secret, { eventId: "evt_handler_1" }),
    body,
  });
}

Deno.test("paymentWebhookHandler() answers 500 and confirms nothing while RAZORPAY_WEBHOOK_SECRET is not set", async () => {
  const ledger = recordingLedger();
  const log = capturingLogger();
  const body = JSON.stringify(paymentCapturedEvent({ orderId: ORDER_ID, amount: 100 }));
  const res = await handler(null, ledger, log)(await signedRequest(body));
  assert.equal(res.status, 500);
  assert.deepEqual(await res.json(), {
    success: false,
    error: { code: "INTERNAL_ERROR", message: "Internal error" },
  });
  assert.deepEqual(ledger.seen, []);
  assert.ok(log.lines.some((line) => line.includes("RAZORPAY_WEBHOOK_SECRET is not set")));
});

Deno.test("paymentWebhookHandler() needs no API key: the signature admits Razorpay, and a project key admits nobody", async () => {
  const ledger = recordingLedger();
  const body = JSON.stringify(paymentCapturedEvent({ orderId: ORDER_ID, amount: 100 }));
  const signed = await handler(SECRET, ledger)(await signedRequest(body));
  assert.equal(signed.status, 200);
  const withKeyOnly = new Request("http://localhost/functions/v1/payment-webhook", {
    method: "POST",
    headers: { Authorization: "Bearer service", "x-razorpay-event-id": "evt_2" },
    body,
  });
  assert.equal((await handler(SECRET, ledger)(withKeyOnly)).status, 401);
  assert.equal(ledger.seen.length, 1);
  assert.deepEqual(ledger.seen[0], {
    provider: "razorpay",
    eventId: "evt_handler_1",
    providerPaymentId: ledger.seen[0].providerPaymentId,
    orderId: ORDER_ID,
    amountMinor: 100,
    currency: "INR",
    method: "upi",
    providerOrderId: "order_DESxiijbl9xjDB",
  });
});

Deno.test("paymentWebhookHandler() checks the signature before parsing: a forged body that is no JSON is 401, not 400", async () => {
  const ledger = recordingLedger();
  const res = await handler(SECRET, ledger)(await signedRequest("{not json", "another-secret"));
  assert.equal(res.status, 401);
  const signedGarbage = await handler(SECRET, ledger)(await signedRequest("{not json"));
  assert.equal(signedGarbage.status, 400);
  assert.equal((await signedGarbage.json()).error.code, "INVALID_JSON");
  assert.deepEqual(ledger.seen, []);
});

Deno.test("paymentWebhookHandler() answers 405 with Allow to a GET", async () => {
  const res = await handler(SECRET, recordingLedger())(new Request("http://localhost/", { method: "GET" }));
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "POST, OPTIONS");
});

Deno.test("paymentWebhookHandler() gives confirm_payment a deadline that lets Razorpay have its answer within 5 s", async () => {
  const ledger = recordingLedger();
  const now = new Date("2026-11-23T10:00:00.000Z");
  const { paymentWebhookTimeoutMs } = parseConfig({
    SUPABASE_URL: "https://x.co",
    SUPABASE_SERVICE_ROLE_KEY: "s",
  });
  const body = JSON.stringify(paymentCapturedEvent({ orderId: ORDER_ID, amount: 100 }));
  const res = await handler(SECRET, ledger, capturingLogger(), { paymentWebhookTimeoutMs, clock: () => now })(
    await signedRequest(body),
  );
  assert.equal(res.status, 200);
  assert.equal(ledger.deadlines[0].getTime() - now.getTime(), 2_500);
  // the call gives up ANSWER_GRACE_MS after its deadline at the latest
  assert.ok(2_500 + ANSWER_GRACE_MS < RAZORPAY_ANSWER_LIMIT_MS);
});
