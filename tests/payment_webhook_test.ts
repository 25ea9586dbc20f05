/**
 * The payment-webhook function over HTTP on the local stack, fed Razorpay events built from the documented
 * payload shapes and signed as Razorpay signs them: no signature or a wrong one stores nothing, a replayed
 * event pays once and e-mails once, a wrong amount or currency is recorded, pays nothing and is owed back, a
 * payment for a cancelled or already-paid order is recorded for refund and reported.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { hmacSha256Hex } from "../supabase/functions/_shared/payments/webhook_signature.ts";
import { createTestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { capturingLogger } from "./support/log_capture.ts";
import {
  orderPaidEvent,
  paymentCapturedEvent,
  paymentFailedEvent,
  postRazorpayEvent,
} from "./support/razorpay_events.ts";
import { historyRows, orderStatus, postStatusMove, statusEmailRows } from "./support/status_moves.ts";

/** A gateway/card order of two Assam Tea: final amount 715.45, so 71,545 paise. */
const FINAL_PAISE = 71_545;

/** The same two teas paid by UPI direct transfer: 698.00, so 69,800 paise. */
const UPI_DIRECT_PAISE = 69_800;

async function newOrder(db: SqlDatabase, method: "gateway" | "upi_direct" = "gateway") {
  const store = await createTestStore(db);
  const payload = method === "gateway" ? createOrderPayload(store) : createOrderPayload(store, {
    paymentMethod: "upi_direct",
    gatewayMethod: null,
    paymentProofUrl: "https://proof.example/upi/1.png",
    feeMinor: 0,
    finalMinor: UPI_DIRECT_PAISE,
  });
  const { response } = await callCreateOrder(db, payload);
  return { orderId: response.orderId, orderNumber: response.orderNumber };
}

/** The `payment.needs_review` lines the stack logged. */
function reviewLines(lines: string[]) {
  return lines.map((line) => JSON.parse(line)).filter((entry) => entry.event === "payment.needs_review");
}

/** The payments recorded for an order, in the order they arrived. */
function paymentRows(db: SqlDatabase, orderId: string | null, eventIds: string[] = []) {
  return db.query<
    {
      provider_event_id: string;
      outcome: string;
      amount: string;
      currency: string;
      expected_amount: string | null;
    }
  >(
    `select provider_event_id, outcome, amount::text, currency, expected_amount::text from public.payments
     where order_id = $1 or provider_event_id = any($2::text[]) order by received_at, provider_event_id`,
    [orderId, eventIds],
  );
}

async function stackWithMail(db: SqlDatabase) {
  const mail = capturingMailer();
  const log = capturingLogger();
  const stack = await startTestStack({ db, mailer: () => Promise.resolve(mail), log });
  return Object.assign(stack, { messages: mail.messages, lines: log.lines });
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST payment-webhook answers 401 to a missing or wrong signature and stores nothing", async (t) => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const event = paymentCapturedEvent({ orderId, amount: FINAL_PAISE });
      const body = JSON.stringify(event);
      const tampered = JSON.stringify(paymentCapturedEvent({ orderId, amount: 1 }));
      const cases: [string, string | unknown, { signature?: string | null; secret?: string }][] = [
        ["no signature", event, { signature: null }],
        ["an empty signature", event, { signature: "" }],
        ["signed with another secret", event, { secret: "not-the-webhook-secret" }],
        ["the signature of another body", tampered, {
          signature: await hmacSha256Hex(stack.razorpayWebhookSecret, new TextEncoder().encode(body)),
        }],
        ["a signature one hex digit off", event, {
          signature: (await hmacSha256Hex(stack.razorpayWebhookSecret, new TextEncoder().encode(body)))
            .replace(/.$/, (c) => (c === "0" ? "1" : "0")),
        }],
        ["not JSON, unsigned", "{not json", { signature: null }],
      ];
      for (const [label, payload, options] of cases) {
        await t.step(label, async () => {
          const res = await postRazorpayEvent(stack, typeof payload === "string" ? payload : body, options);
          assert.equal(res.status, 401);
          assert.equal((await res.json()).error.code, "UNAUTHORIZED");
        });
      }
      await stack.settled();
      assert.deepEqual(await paymentRows(db, orderId), []);
      assert.equal(await orderStatus(db, orderId), "payment_pending");
      assert.equal(stack.messages.length, 0);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook marks an order paid once for the same event delivered twice, with one e-mail each side", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId, orderNumber } = await newOrder(db);
      const event = paymentCapturedEvent({ orderId, amount: FINAL_PAISE, paymentId: "pay_DESyzxuld02Zul" });
      const eventId = `evt_${crypto.randomUUID()}`;
      const first = await postRazorpayEvent(stack, event, { eventId });
      assert.equal(first.status, 200);
      assert.deepEqual(await first.json(), {
        received: true,
        outcome: "paid",
        orderId,
        orderStatus: "paid",
        refundDue: false,
        replayed: false,
      });
      await stack.settled();
      const again = await postRazorpayEvent(stack, event, { eventId });
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), {
        received: true,
        outcome: "paid",
        orderId,
        orderStatus: "paid",
        refundDue: false,
        replayed: true,
      });
      await stack.settled();
      assert.deepEqual(await paymentRows(db, orderId), [
        {
          provider_event_id: eventId,
          outcome: "paid",
          amount: "715.45",
          currency: "INR",
          expected_amount: "715.45",
        },
      ]);
      assert.deepEqual((await historyRows(db, orderId)).map((h) => [h.move, h.actor, h.note]), [
        ["->payment_pending", "system", null],
        ["payment_pending>paid", "payment_gateway", "razorpay payment pay_DESyzxuld02Zul"],
      ]);
      assert.deepEqual(await statusEmailRows(db, orderId), [
        { kind: "status_paid", to_email: "asha@example.com", status: "sent" },
      ]);
      assert.deepEqual(stack.messages.map((m) => m.idempotencyKey).sort(), [
        `order/${orderId}/seller/paid`,
        `order/${orderId}/status/paid`,
      ]);
      const buyer = stack.messages.find((m) => m.idempotencyKey === `order/${orderId}/status/paid`)!;
      assert.equal(buyer.subject, `Payment received for your order ${orderNumber} at Test Store`);
      // the fixture's payment is Razorpay's UPI sample: the e-mail names the method used, not the card chosen
      assert.ok(
        buyer.text.includes(
          "PAYMENT\nPaid online through the payment gateway (UPI), confirmed by the gateway.",
        ),
        buyer.text,
      );
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook marks an order paid once when payment.captured and order.paid report one payment", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const fixture = { orderId, amount: FINAL_PAISE, paymentId: "pay_DESlfW9H8K9uqM" };
      const outcomes = [];
      for (const event of [orderPaidEvent(fixture), paymentCapturedEvent(fixture)]) {
        const res = await postRazorpayEvent(stack, event);
        assert.equal(res.status, 200);
        outcomes.push((await res.json()).outcome);
      }
      await stack.settled();
      assert.deepEqual(outcomes, ["paid", "already_paid"]);
      assert.deepEqual((await paymentRows(db, orderId)).map((p) => p.outcome).sort(), [
        "already_paid",
        "paid",
      ]);
      assert.equal(stack.messages.length, 2, "one paid e-mail to the buyer, one to the seller");
      assert.equal((await historyRows(db, orderId)).length, 2);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook records an amount that differs from the order's final amount, does not mark it paid, and owes it back", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      for (const amount of [FINAL_PAISE - 1, FINAL_PAISE * 10]) {
        const res = await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount }));
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.deepEqual([body.outcome, body.orderStatus, body.refundDue], [
          "amount_mismatch",
          "payment_pending",
          true,
        ]);
      }
      await stack.settled();
      assert.deepEqual(
        (await paymentRows(db, orderId)).map((p) => [p.outcome, p.amount, p.expected_amount]).sort(),
        [["amount_mismatch", "715.44", "715.45"], ["amount_mismatch", "7154.50", "715.45"]],
      );
      assert.equal(await orderStatus(db, orderId), "payment_pending");
      assert.equal(stack.messages.length, 0);
      assert.equal(stack.lines.filter((line) => line.includes('"payment.needs_review"')).length, 2);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook records a payment in another currency and does not mark the order paid", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const res = await postRazorpayEvent(
        stack,
        paymentCapturedEvent({ orderId, amount: FINAL_PAISE, currency: "USD" }),
      );
      assert.equal((await res.json()).outcome, "currency_mismatch");
      assert.deepEqual((await paymentRows(db, orderId)).map((p) => [p.outcome, p.currency]), [[
        "currency_mismatch",
        "USD",
      ]]);
      assert.equal(await orderStatus(db, orderId), "payment_pending");
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook records a payment for a cancelled order for refund, reports it, and leaves the order cancelled", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      await postStatusMove(stack, { orderId, status: "cancelled", note: "Buyer changed their mind" });
      await stack.settled();
      const eventId = `evt_${crypto.randomUUID()}`;
      const res = await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: FINAL_PAISE }), {
        eventId,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), {
        received: true,
        outcome: "order_cancelled",
        orderId,
        orderStatus: "cancelled",
        refundDue: true,
        replayed: false,
      });
      await stack.settled();
      assert.deepEqual((await paymentRows(db, orderId)).map((p) => p.outcome), ["order_cancelled"]);
      assert.equal(await orderStatus(db, orderId), "cancelled");
      const review = stack.lines.map((line) => JSON.parse(line)).filter((e) =>
        e.event === "payment.needs_review"
      );
      assert.equal(review.length, 1);
      assert.equal(review[0].eventId, eventId);
      assert.equal(review[0].outcome, "order_cancelled");
      assert.equal(review[0].refundDue, true);
      assert.deepEqual(stack.messages.map((m) => m.idempotencyKey), [`order/${orderId}/status/cancelled`]);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook reports one refund when payment.captured and order.paid report one payment of a cancelled order", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      await postStatusMove(stack, { orderId, status: "cancelled", note: "Buyer changed their mind" });
      const fixture = { orderId, amount: FINAL_PAISE, paymentId: `pay_${crypto.randomUUID().slice(0, 14)}` };
      const answers = [];
      for (const event of [paymentCapturedEvent(fixture), orderPaidEvent(fixture)]) {
        const res = await postRazorpayEvent(stack, event);
        assert.equal(res.status, 200);
        answers.push(await res.json());
      }
      await stack.settled();
      assert.deepEqual(answers.map((a) => [a.outcome, a.refundDue, a.orderStatus]), [
        ["order_cancelled", true, "cancelled"],
        ["already_recorded", false, "cancelled"],
      ]);
      assert.deepEqual(
        reviewLines(stack.lines).map((e) => [e.outcome, e.refundDue]),
        [["order_cancelled", true]],
      );
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook records a second payment of an order already paid for refund", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const first = await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: FINAL_PAISE }));
      assert.equal((await first.json()).outcome, "paid");
      const res = await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: FINAL_PAISE }));
      const body = await res.json();
      assert.deepEqual([body.outcome, body.refundDue, body.orderStatus], ["duplicate_payment", true, "paid"]);
      await stack.settled();
      assert.equal((await historyRows(db, orderId)).length, 2);
      assert.equal(stack.messages.length, 2, "the first payment e-mailed each side once; the second nothing");
      assert.deepEqual(reviewLines(stack.lines).map((e) => [e.outcome, e.refundDue]), [[
        "duplicate_payment",
        true,
      ]]);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook takes the gateway's payment of an order the seller marked paid as its payment, not for refund", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      await postStatusMove(stack, { orderId, status: "paid", note: "Buyer sent the receipt" });
      const res = await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: FINAL_PAISE }));
      const body = await res.json();
      assert.deepEqual([body.outcome, body.refundDue, body.orderStatus], ["paid", false, "paid"]);
      await stack.settled();
      assert.equal((await historyRows(db, orderId)).length, 2);
      assert.equal(stack.messages.length, 1, "the seller's move e-mailed once; the payment nothing");
      assert.deepEqual(reviewLines(stack.lines), []);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook finds the order in the Razorpay order's notes of order.paid, and records a payment of no known order", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const viaOrder = await postRazorpayEvent(
        stack,
        orderPaidEvent({ orderId: null, amount: FINAL_PAISE }, { orderId }),
      );
      assert.equal((await viaOrder.json()).outcome, "paid");

      const eventIds = [`evt_${crypto.randomUUID()}`, `evt_${crypto.randomUUID()}`];
      const cases = [
        paymentCapturedEvent({ orderId: null, amount: FINAL_PAISE }),
        paymentCapturedEvent({ orderId: "ORD-2026-000001", amount: FINAL_PAISE }),
      ];
      for (const [i, event] of cases.entries()) {
        const res = await postRazorpayEvent(stack, event, { eventId: eventIds[i] });
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.deepEqual([body.outcome, body.orderId, body.refundDue], ["order_not_found", null, false]);
      }
      assert.deepEqual((await paymentRows(db, null, eventIds)).map((p) => p.outcome), [
        "order_not_found",
        "order_not_found",
      ]);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook acknowledges other events and uncaptured payments with 200 and stores nothing", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const authorized = { ...paymentCapturedEvent({ orderId, amount: FINAL_PAISE, status: "authorized" }) };
      for (
        const [event, ignored] of [
          [paymentFailedEvent({ orderId, amount: FINAL_PAISE }), "payment.failed does not confirm a payment"],
          [{ ...authorized, event: "payment.authorized" }, "payment.authorized does not confirm a payment"],
          [authorized, "the payment's status is authorized, not captured"],
        ] as const
      ) {
        const res = await postRazorpayEvent(stack, event);
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), { received: true, ignored });
      }
      assert.deepEqual(await paymentRows(db, orderId), []);
      assert.equal(await orderStatus(db, orderId), "payment_pending");
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook answers 400 to a signed event without x-razorpay-event-id or a payment entity, storing nothing", async () => {
    const stack = await stackWithMail(db);
    try {
      const { orderId } = await newOrder(db);
      const event = paymentCapturedEvent({ orderId, amount: FINAL_PAISE });
      const body = JSON.stringify(event);
      const signature = await hmacSha256Hex(stack.razorpayWebhookSecret, new TextEncoder().encode(body));
      const noEventId = await fetch(`${stack.url}/functions/v1/payment-webhook`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Razorpay-Signature": signature },
        body,
      });
      assert.equal(noEventId.status, 400);
      assert.deepEqual((await noEventId.json()).error.details, [{
        path: "x-razorpay-event-id",
        message: "the event id header is required",
      }]);
      const noEntity = await postRazorpayEvent(stack, { ...event, payload: {} });
      assert.equal(noEntity.status, 400);
      assert.equal((await noEntity.json()).error.code, "VALIDATION_FAILED");
      assert.deepEqual(await paymentRows(db, orderId), []);
    } finally {
      await stack.close();
    }
  });
}
