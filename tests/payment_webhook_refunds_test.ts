/**
 * payment-webhook over HTTP for what phase B of payments added: a `payment.captured` whose payment carries no
 * notes decides through the Razorpay order start-payment kept (as Checkout opened without notes sends it),
 * the method actually used reaches the ledger, and the signed `refund.processed` / `refund.failed` events
 * settle our refund (found by the receipt we gave it, or Razorpay's id), once, and nothing else.
 */
import assert from "node:assert/strict";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { placeOrder, postFunction, startPayment } from "./support/payments.ts";
import { paymentCapturedEvent, postRazorpayEvent, refundEvent } from "./support/razorpay_events.ts";
import { refundRows } from "./support/refunds.ts";
import { orderStatus } from "./support/status_moves.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST payment-webhook decides a payment.captured whose payment has no notes through the Razorpay order start-payment kept", async () => {
    // payment.captured alone: order.paid, which names the Razorpay order itself, must not decide it first
    const stack = await startTestStack({ db, fakeRazorpay: { webhookEvents: ["payment.captured"] } });
    try {
      const { orderId } = await placeOrder(db);
      const { providerOrderId } = await startPayment(stack, orderId);
      // Checkout opened without notes: the payment carries none, only its Razorpay order
      await stack.razorpay!.pay(providerOrderId, { method: "card", notes: {} });
      await stack.razorpay!.webhooks.settled();
      const captured = stack.razorpay!.webhooks.deliveries.find((d) => d.event === "payment.captured")!;
      assert.equal(captured.status, 200);
      const [row] = await db.query<{ outcome: string; order_id: string; method: string }>(
        "select outcome, order_id, method from public.payments where provider_event_id = $1",
        [captured.eventId],
      );
      assert.deepEqual(row, { outcome: "paid", order_id: orderId, method: "card" });
      assert.equal(await orderStatus(db, orderId), "paid");
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook settles our refund on refund.processed and refund.failed, once, and ignores a refund not ours", async (t) => {
    const stack = await startTestStack({ db });
    try {
      /** A refund due: a ₹1 payment of a new order, reported by the webhook. */
      const refundDue = async () => {
        const { orderId } = await placeOrder(db);
        const paymentId = `pay_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`;
        const paid = await postRazorpayEvent(
          stack,
          paymentCapturedEvent({ orderId, amount: 100, paymentId }),
        );
        assert.deepEqual((await paid.json()).refundDue, true);
        const [refund] = await refundRows(db, orderId);
        return { orderId, paymentId, refundId: refund.id };
      };
      await t.step("refund.processed by our receipt, then again", async () => {
        const due = await refundDue();
        const event = refundEvent("processed", {
          paymentId: due.paymentId,
          receipt: due.refundId,
          refundId: `rfnd_P${due.paymentId.slice(4)}`,
          amount: 100,
        });
        const first = await postRazorpayEvent(stack, event);
        assert.equal(first.status, 200);
        assert.deepEqual(await first.json(), {
          received: true,
          refundId: due.refundId,
          orderId: due.orderId,
          refundStatus: "processed",
          changed: true,
          replayed: false,
        });
        const again = await postRazorpayEvent(stack, event);
        assert.deepEqual((await again.json()).changed, false);
        assert.deepEqual((await refundRows(db, due.orderId)).map((r) => [r.status, r.provider_refund_id]), [
          ["processed", `rfnd_P${due.paymentId.slice(4)}`],
        ]);
      });
      await t.step("refund.failed", async () => {
        const due = await refundDue();
        const res = await postRazorpayEvent(
          stack,
          refundEvent("failed", {
            paymentId: due.paymentId,
            receipt: due.refundId,
            refundId: "rfnd_Failed0000001",
          }),
        );
        assert.equal((await res.json()).refundStatus, "failed");
      });
      await t.step(
        "a refund made by hand in the dashboard, and our receipt on another payment's refund",
        async () => {
          const due = await refundDue();
          for (
            const event of [
              refundEvent("processed", {
                paymentId: due.paymentId,
                receipt: null,
                refundId: "rfnd_ByHand0000001",
              }),
              refundEvent("processed", { paymentId: "pay_NotThisOne0001", receipt: due.refundId }),
            ]
          ) {
            const res = await postRazorpayEvent(stack, event);
            assert.deepEqual(await res.json(), {
              received: true,
              ignored: "no refund of ours has this id or receipt",
            });
          }
          assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
        },
      );
      await t.step("a forged refund event (wrong signature): 401, nothing settled", async () => {
        const due = await refundDue();
        const res = await postRazorpayEvent(
          stack,
          refundEvent("processed", { paymentId: due.paymentId, receipt: due.refundId }),
          { secret: "not-the-webhook-secret" },
        );
        assert.equal(res.status, 401);
        await res.body?.cancel();
        assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
      });
    } finally {
      await stack.close();
    }
  });

  test("POST verify-payment records the method the buyer actually used and its fee shortfall (card on a upi order)", async () => {
    const stack = await startTestStack({ db });
    try {
      const { orderId } = await placeOrder(db, "upi");
      const started = await startPayment(stack, orderId);
      stack.razorpay!.webhooks.held = true;
      const answer = await stack.razorpay!.pay(started.providerOrderId, {
        method: "card",
        notes: { orderId },
      });
      if ("error" in answer) throw new Error(answer.error.description);
      const verified = await postFunction(stack, "verify-payment", {
        orderId,
        razorpayOrderId: answer.razorpay_order_id,
        razorpayPaymentId: answer.razorpay_payment_id,
        razorpaySignature: answer.razorpay_signature,
      });
      assert.deepEqual(await verified.json(), {
        success: true,
        orderId,
        orderNumber: started.orderNumber,
        status: "paid",
        outcome: "paid",
      });
      await stack.razorpay!.webhooks.release();
      const rows = await db.query<{ outcome: string; method: string; fee_shortfall: string }>(
        `select outcome, method, fee_shortfall::text from public.payments where order_id = $1
         order by received_at, provider_event_id`,
        [orderId],
      );
      assert.deepEqual(rows.map((r) => [r.outcome, r.method, r.fee_shortfall]), [
        ["paid", "card", "349"],
        ["already_paid", "card", "349"],
        ["already_paid", "card", "349"],
      ]);
    } finally {
      await stack.close();
    }
  });
}
