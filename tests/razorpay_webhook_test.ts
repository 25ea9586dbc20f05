import assert from "node:assert/strict";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import {
  razorpayEventId,
  readRazorpayEvent,
  requireRazorpaySignature,
} from "../supabase/functions/_shared/payments/razorpay_webhook.ts";
import {
  hmacSha256Hex,
  verifyHexHmacSha256,
} from "../supabase/functions/_shared/payments/webhook_signature.ts";
import {
  orderPaidEvent,
  paymentCapturedEvent,
  razorpayHeaders,
  refundEvent,
} from "./support/razorpay_events.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const ORDER_ID = "0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77";

Deno.test("hmacSha256Hex() gives RFC 4231's HMAC-SHA256 of test case 2", async () => {
  assert.equal(
    await hmacSha256Hex("Jefe", encode("what do ya want for nothing?")),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});

Deno.test("verifyHexHmacSha256() accepts the body's signature in either letter case and refuses any other", async () => {
  const body = encode('{"event":"payment.captured"}');
  const signature = await hmacSha256Hex("secret", body);
  assert.equal(await verifyHexHmacSha256(body, signature, "secret"), true);
  assert.equal(await verifyHexHmacSha256(body, signature.toUpperCase(), "secret"), true);
  for (
    const wrong of [
      "",
      signature.slice(0, -1),
      `${signature}0`,
      signature.replace(/^./, (c) => (c === "a" ? "b" : "a")),
      await hmacSha256Hex("other", body),
      await hmacSha256Hex("secret", encode('{"event": "payment.captured"}')),
    ]
  ) {
    assert.equal(await verifyHexHmacSha256(body, wrong, "secret"), false, wrong);
  }
});

Deno.test("requireRazorpaySignature() throws UNAUTHORIZED for a missing or wrong X-Razorpay-Signature", async () => {
  const body = JSON.stringify(paymentCapturedEvent({ orderId: ORDER_ID, amount: 100 }));
  const good = new Headers(await razorpayHeaders(body, "secret"));
  await requireRazorpaySignature(good, encode(body), "secret");
  for (
    const headers of [
      await razorpayHeaders(body, "secret", { signature: null }),
      await razorpayHeaders(body, "x"),
    ]
  ) {
    await assert.rejects(
      requireRazorpaySignature(new Headers(headers), encode(body), "secret"),
      (error: OrderError) => error.code === "UNAUTHORIZED",
    );
  }
});

Deno.test("readRazorpayEvent() reads payment.captured's payment: id, paise, currency, method and notes.orderId", () => {
  const event = paymentCapturedEvent({ orderId: ORDER_ID, amount: 101694, paymentId: "pay_DESyzxuld02Zul" });
  assert.deepEqual(readRazorpayEvent(event, "evt_1"), {
    event: "payment.captured",
    confirmation: {
      provider: "razorpay",
      eventId: "evt_1",
      providerPaymentId: "pay_DESyzxuld02Zul",
      orderId: ORDER_ID,
      amountMinor: 101694,
      currency: "INR",
      method: "upi",
      providerOrderId: "order_DESxiijbl9xjDB",
    },
  });
});

Deno.test("readRazorpayEvent() reads refund.processed and refund.failed: the event's id, Razorpay's refund id, the payment's id and our receipt", async (t) => {
  for (const status of ["processed", "failed"] as const) {
    await t.step(status, () => {
      const event = refundEvent(status, { paymentId: "pay_FP8B5R2zE1cyXA", receipt: ORDER_ID });
      assert.deepEqual(readRazorpayEvent(event, "evt_r"), {
        event: `refund.${status}`,
        refund: {
          provider: "razorpay",
          eventId: "evt_r",
          providerPaymentId: "pay_FP8B5R2zE1cyXA",
          providerRefundId: "rfnd_FP8DDKxqJif6ca",
          receipt: ORDER_ID,
          status,
        },
      });
    });
  }
  await t.step("a refund made in the dashboard has no receipt", () => {
    const event = readRazorpayEvent(refundEvent("processed", { paymentId: "pay_1", receipt: null }), "e");
    assert.equal("refund" in event && event.refund.receipt, null);
  });
  await t.step("without its refund entity: VALIDATION_FAILED", () => {
    assert.throws(
      () => readRazorpayEvent({ event: "refund.processed", payload: {} }, "e"),
      (error: OrderError) => error.code === "VALIDATION_FAILED",
    );
  });
});

Deno.test("readRazorpayEvent() reads order.paid's payment, and the Razorpay order's notes when the payment has none", () => {
  const withPaymentNotes = readRazorpayEvent(orderPaidEvent({ orderId: ORDER_ID, amount: 100 }), "e");
  assert.equal("confirmation" in withPaymentNotes && withPaymentNotes.confirmation.orderId, ORDER_ID);
  const withOrderNotes = readRazorpayEvent(
    orderPaidEvent({ orderId: null, amount: 100 }, { orderId: ORDER_ID }),
    "e",
  );
  assert.equal("confirmation" in withOrderNotes && withOrderNotes.confirmation.orderId, ORDER_ID);
  const withNone = readRazorpayEvent(orderPaidEvent({ orderId: null, amount: 100 }), "e");
  assert.equal("confirmation" in withNone && withNone.confirmation.orderId, null);
});

Deno.test("readRazorpayEvent() ignores other events and payments that are not captured", () => {
  assert.deepEqual(readRazorpayEvent({ event: "refund.created", payload: {} }, "e"), {
    event: "refund.created",
    ignored: "refund.created does not confirm a payment",
  });
  const authorized = paymentCapturedEvent({ orderId: ORDER_ID, amount: 1, status: "authorized" });
  assert.deepEqual(readRazorpayEvent(authorized, "e"), {
    event: "payment.captured",
    ignored: "the payment's status is authorized, not captured",
  });
});

Deno.test("readRazorpayEvent() answers VALIDATION_FAILED for a payment event without a valid payment entity", async (t) => {
  const base = paymentCapturedEvent({ orderId: ORDER_ID, amount: 100 });
  const entity = base.payload.payment.entity;
  const cases: [string, unknown][] = [
    ["not an object", "payment.captured"],
    ["no payload", { event: "payment.captured" }],
    ["a fractional amount", { ...base, payload: { payment: { entity: { ...entity, amount: 1.5 } } } }],
    ["a negative amount", { ...base, payload: { payment: { entity: { ...entity, amount: -1 } } } }],
    ["no currency", { ...base, payload: { payment: { entity: { ...entity, currency: undefined } } } }],
  ];
  for (const [label, body] of cases) {
    await t.step(label, () => {
      assert.throws(
        () => readRazorpayEvent(body, "e"),
        (error: OrderError) => error.code === "VALIDATION_FAILED",
      );
    });
  }
});

Deno.test("razorpayEventId() reads x-razorpay-event-id, or answers VALIDATION_FAILED without one", () => {
  assert.equal(razorpayEventId(new Headers({ "x-razorpay-event-id": "KlmnoPQRsT12" })), "KlmnoPQRsT12");
  for (const value of [null, "", "a b", "x".repeat(256)]) {
    const headers = new Headers(value === null ? {} : { "x-razorpay-event-id": value });
    assert.throws(() => razorpayEventId(headers), (error: OrderError) => error.code === "VALIDATION_FAILED");
  }
});
