/**
 * A gateway payment end to end over HTTP, as a new user makes it on the local stack: create-order,
 * start-payment, the fake Razorpay's checkout pays, verify-payment, and the order's page (track-order, from
 * the link of the buyer's e-mail, which offered "Pay ₹… now") shows it paid, with the buyer's and only one
 * `paid` e-mail sent.
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
      `[${name}] a buyer pays a gateway order: create-order, start-payment, Checkout, verify-payment, and the order's page shows it paid`,
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
      } finally {
        await stack.close();
      }
    },
  });
}
