/**
 * A gateway payment end to end over HTTP, as a new user makes it on the local stack: create-order,
 * start-payment, the fake Razorpay's checkout pays, verify-payment, and the order's page (track-order, from
 * the link of the buyer's e-mail, which offered "Pay ₹… now") shows it paid, with one `paid` e-mail to the
 * buyer and one to the seller; then the seller cancels it (update-order-status answers the refund), the
 * outbox drain's run issues the refund through Razorpay (the refund e-mail goes to the buyer), and Razorpay's
 * refund.processed webhook settles it: the refund, read as the seller's back office reads it
 * (`/rest/v1/refunds` with the service key), goes pending, issued, processed.
 */
import assert from "node:assert/strict";
import { DEV_TRACKING_SECRET } from "../supabase/functions/_shared/config.ts";
import { orderTrackingToken } from "../supabase/functions/_shared/orders/tracking_token.ts";
import { createTestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { gatewayOrderBody } from "./support/order_request.ts";
import { postFunction, verifyBody } from "./support/payments.ts";

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] a buyer pays a gateway order (create-order, start-payment, Checkout, verify-payment: the order's page shows it paid), the seller cancels it, and the drain refunds it: issued, then processed`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const mail = capturingMailer();
      const stack = await startTestStack({ db, mailer: () => Promise.resolve(mail) });
      try {
        const store = await createTestStore(db, { name: "Chai & Co" });
        const created = await stack.post(gatewayOrderBody(store, "upi"));
        assert.equal(created.status, 200);
        const order = await created.json();
        await stack.settled();
        // the confirmation offers the payment on the order's page
        const confirmation = mail.messages.find((m) => m.to === "asha@example.com")!;
        assert.match(confirmation.text, /^Pay ₹711\.96 now: http:\/\/127\.0\.0\.1:\d+\/track\?order=/m);

        const started = await postFunction(stack, "start-payment", { orderId: order.orderId });
        const payment = await started.json();
        assert.deepEqual([payment.amount, payment.method], [71_196, "upi"]);
        const answer = await stack.razorpay!.pay(payment.providerOrderId, {
          method: "upi",
          notes: { orderId: order.orderId },
        });
        const verified = await postFunction(stack, "verify-payment", verifyBody(order.orderId, answer));
        assert.equal(verified.status, 200);
        assert.equal((await verified.json()).status, "paid");
        await stack.razorpay!.webhooks.settled();
        await stack.settled();

        const token = await orderTrackingToken(DEV_TRACKING_SECRET, order.orderId);
        const tracked = await fetch(
          `${stack.url}/functions/v1/track-order?order=${order.orderId}&token=${encodeURIComponent(token)}`,
        );
        const page = await tracked.json();
        assert.equal(page.status, "paid");
        assert.deepEqual(page.history.map((step: { status: string }) => step.status), [
          "payment_pending",
          "paid",
        ]);
        const paidEmails = mail.messages.filter((m) =>
          m.subject.startsWith("Payment received for your order")
        );
        assert.equal(paidEmails.length, 1);
        assert.equal(
          mail.messages.filter((m) =>
            m.subject === `Payment received for ${order.orderNumber}: ready to ship`
          )
            .length,
          1,
        );

        // the seller cancels it: the money is due back, and the answer says so
        const cancelled = await fetch(`${stack.url}/functions/v1/update-order-status`, {
          method: "POST",
          headers: { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
          body: JSON.stringify({ orderId: order.orderId, status: "cancelled", note: "Out of stock" }),
        });
        assert.equal(cancelled.status, 200);
        assert.deepEqual((await cancelled.json()).refund, { amount: 711.96, status: "pending" });
        await stack.settled();
        const refunds = async () => {
          const res = await fetch(
            `${stack.url}/rest/v1/refunds?select=status,amount,provider_refund_id&order_id=eq.${order.orderId}`,
            { headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` } },
          );
          assert.equal(res.status, 200);
          return await res.json() as { status: string; amount: number; provider_refund_id: string | null }[];
        };
        assert.deepEqual((await refunds()).map((r) => r.status), ["pending"]);

        // the drain's next run (every minute on Supabase) issues it through Razorpay
        const drained = await fetch(`${stack.url}/functions/v1/outbox-drain`, {
          method: "POST",
          headers: { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
          body: "{}",
        });
        assert.equal(drained.status, 200);
        const run = await drained.json();
        assert.deepEqual([run.refunds.issued, run.failedRefunds], [1, []]);
        const [issued] = await refunds();
        assert.equal(issued.status, "issued");
        const refundEmail = mail.messages.find((m) => m.subject.startsWith("Refund of ₹711.96"))!;
        assert.match(refundEmail.text, /UPI account you paid from/);

        // Razorpay credits it and says so: refund.processed, signed, to payment-webhook
        stack.razorpay!.ledger.settleRefund(issued.provider_refund_id!, "processed");
        await stack.razorpay!.webhooks.settled();
        assert.deepEqual(await refunds(), [{
          status: "processed",
          amount: 711.96,
          provider_refund_id: issued.provider_refund_id,
        }]);
      } finally {
        await stack.close();
      }
    },
  });
}
