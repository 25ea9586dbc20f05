/**
 * An order's life over HTTP on the local stack, as a storefront, Razorpay, a seller and a buyer drive it:
 * create the order, confirm its payment with a signed webhook, ship it with a tracking number, follow the
 * tracking link of the buyer's e-mail and see it shipped, deliver it; the buyer gets one e-mail at each step
 * that has one, and the history says who moved it.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { gatewayOrderBody } from "./support/order_request.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { historyRows, postStatusMove } from "./support/status_moves.ts";

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] an order is created, paid by a signed Razorpay webhook, shipped, tracked from the buyer's e-mail and delivered, e-mailing the buyer at each step`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const store = await createTestStore(db, { name: "Chai & Co." });
      const mail = capturingMailer();
      const stack = await startTestStack({
        db,
        mailer: () => Promise.resolve(mail),
        env: {
          ORDER_TRACKING_URL: "https://shop.example/track?order={orderId}&token={token}",
          RATE_LIMIT_PER_IP: "0",
        },
      });
      try {
        const created = await stack.post(gatewayOrderBody(store, "upi"));
        assert.equal(created.status, 200);
        const order = await created.json();
        assert.equal(order.finalAmount, 711.96); // 698.00 + 2 % UPI fee

        const payment = await postRazorpayEvent(
          stack,
          paymentCapturedEvent({ orderId: order.orderId, amount: 71_196, paymentId: "pay_journey_1" }),
        );
        assert.deepEqual(await payment.json(), {
          received: true,
          outcome: "paid",
          orderId: order.orderId,
          orderStatus: "paid",
          refundDue: false,
          replayed: false,
        });
        for (
          const move of [
            { status: "processing" },
            {
              status: "shipped",
              carrier: "Delhivery",
              trackingNumber: "DL445712903381",
              trackingUrl: "https://www.delhivery.com/track/package/DL445712903381",
            },
          ]
        ) {
          const res = await postStatusMove(stack, { orderId: order.orderId, ...move });
          assert.equal(res.status, 200, move.status);
          assert.equal((await res.json()).status, move.status);
        }
        await stack.settled();

        // the buyer opens the link of their shipped e-mail: the storefront's page asks track-order
        const shippedMail = mail.messages.find((m) =>
          m.to === "asha@example.com" && /has shipped$/.test(m.subject)
        );
        const link = new URL(/Track your order: (\S+)/.exec(shippedMail!.text)![1]);
        assert.equal(link.searchParams.get("order"), order.orderId);
        const tracked = await fetch(`${stack.url}/functions/v1/track-order${link.search}`);
        assert.equal(tracked.status, 200);
        const tracking = await tracked.json();
        assert.equal(tracking.status, "shipped");
        assert.deepEqual(tracking.history.map((h: { status: string }) => h.status), [
          "payment_pending",
          "paid",
          "processing",
          "shipped",
        ]);
        assert.deepEqual(tracking.shipment, {
          carrier: "Delhivery",
          trackingNumber: "DL445712903381",
          trackingUrl: "https://www.delhivery.com/track/package/DL445712903381",
        });

        assert.equal(
          (await postStatusMove(stack, { orderId: order.orderId, status: "delivered" })).status,
          200,
        );
        await stack.settled();

        const toBuyer = mail.messages.filter((m) => m.to === "asha@example.com");
        assert.deepEqual(toBuyer.map((m) => m.subject), [
          `Your order ${order.orderNumber} at Chai & Co.`,
          `Payment received for your order ${order.orderNumber} at Chai & Co.`,
          `Your order ${order.orderNumber} at Chai & Co. has shipped`,
          `Your order ${order.orderNumber} at Chai & Co. was delivered`,
        ]);
        const shipped = toBuyer[2];
        assert.ok(shipped.text.includes("  | Tracking number: DL445712903381"), shipped.text);
        assert.ok(
          shipped.text.includes("Track the parcel: https://www.delhivery.com/track/package/DL445712903381"),
        );
        assert.ok(
          shipped.text.includes(`Track your order: https://shop.example/track?order=${order.orderId}&token=`),
        );
        assert.deepEqual((await historyRows(db, order.orderId)).map((h) => `${h.move} ${h.actor}`), [
          "->payment_pending system",
          "payment_pending>paid payment_gateway",
          "paid>processing seller",
          "processing>shipped seller",
          "shipped>delivered seller",
        ]);
      } finally {
        await stack.close();
      }
    },
  });
}
