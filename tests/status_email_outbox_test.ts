/**
 * The buyer's status e-mails have the order e-mails' guarantees: written in the move's transaction, sent
 * after the answer under the Resend idempotency key `order/<orderId>/status/<status>`, and when that send
 * fails, sent once by the outbox drain. Through the real Resend SDK against the fake Resend.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startFakeResend } from "../local/fake_resend.ts";
import { startTestStack } from "./support/local_stack.ts";
import { gatewayOrderBody } from "./support/order_request.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { fakeSleep } from "./support/recording_outbox.ts";
import { postStatusMove, statusEmailRows } from "./support/status_moves.ts";

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] POST outbox-drain sends a status e-mail the request path failed to send, once`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const store = await createTestStore(db, { name: "Chai & Co" });
      const fake = startFakeResend();
      const stack = await startTestStack({
        db,
        mailer: undefined, // Resend through its SDK, against the fake
        sleep: fakeSleep().sleep,
        env: { RESEND_API_KEY: "re_test", RESEND_BASE_URL: fake.url, RATE_LIMIT_PER_IP: "0" },
      });
      try {
        const order = await (await stack.post(gatewayOrderBody(store, "card"))).json();
        await stack.settled();
        // the paid e-mails' sends after the webhook's answer (the buyer's, and the seller's "ready to ship")
        // fail for good
        fake.script({ status: 422 }, { status: 422 });
        const paid = await postRazorpayEvent(
          stack,
          paymentCapturedEvent({ orderId: order.orderId, amount: 71_545 }),
        );
        assert.equal((await paid.json()).outcome, "paid");
        await stack.settled();
        assert.deepEqual(await statusEmailRows(db, order.orderId), [
          { kind: "status_paid", to_email: "asha@example.com", status: "failed" },
        ]);
        const sellerPaid = () =>
          db.query<{ status: string }>(
            "select status from public.email_outbox where order_id = $1 and kind = 'seller_paid'",
            [order.orderId],
          );
        assert.deepEqual(await sellerPaid(), [{ status: "failed" }]);

        const drain = () =>
          fetch(`${stack.url}/functions/v1/outbox-drain`, {
            method: "POST",
            headers: { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
            body: JSON.stringify({ minAgeSeconds: 0, staleAfterSeconds: 3600 }),
          }).then((res) => res.json());
        const none = { claimed: 0, sent: 0, failed: 0, dead: 0, ignored: 0, superseded: 0, released: 0 };
        assert.deepEqual((await drain()).emails, { ...none, claimed: 2, sent: 2 });
        assert.deepEqual((await drain()).emails, none);
        assert.deepEqual(await statusEmailRows(db, order.orderId), [
          { kind: "status_paid", to_email: "asha@example.com", status: "sent" },
        ]);
        assert.deepEqual(await sellerPaid(), [{ status: "sent" }]);
        // the failed send under the e-mail's key; refused for sure, so the drain's send was a batch of it
        const key = `order/${order.orderId}/status/paid`;
        assert.equal(fake.requests.filter((r) => r.idempotencyKey === key).length, 1);
        const batches = fake.requests.filter((r) => r.path === "/emails/batch");
        assert.deepEqual(batches.map((r) => (r.body as unknown[]).length), [2]);
        assert.deepEqual(
          fake.delivered.filter((d) => d.subject.startsWith("Payment received")).map((d) => d.subject).sort(),
          [
            `Payment received for ${order.orderNumber}: ready to ship`,
            `Payment received for your order ${order.orderNumber} at Chai & Co`,
          ],
        );

        // a later move's e-mail goes out on the request path as usual
        await postStatusMove(stack, { orderId: order.orderId, status: "processing" });
        await postStatusMove(stack, { orderId: order.orderId, status: "shipped", trackingNumber: "DL1" });
        await stack.settled();
        assert.deepEqual((await statusEmailRows(db, order.orderId)).map((r) => [r.kind, r.status]), [
          ["status_paid", "sent"],
          ["status_shipped", "sent"],
        ]);
      } finally {
        await stack.close();
        await fake.close();
      }
    },
  });
}
