/**
 * Both sides hear of a payment, and every e-mail after it names the method actually used (contract: "Both
 * sides hear of a payment", "The method actually used"), over HTTP on the local stack with the fake Razorpay:
 * verify-payment and then the webhook for the same payment make one decision and one paid e-mail each side
 * (the buyer's, and the seller's "ready to ship", Reply-To the buyer); a card payment of an order priced as
 * UPI pays it, with its fee shortfall, and both e-mails say "card"; a seller who marked the order paid hears
 * nothing from the gateway's payment.
 */
import assert from "node:assert/strict";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { placeOrder, postFunction, startPayment, verifyBody } from "./support/payments.ts";
import { postStatusMove } from "./support/status_moves.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  const paymentStack = async () => {
    const mail = capturingMailer();
    const stack = await startTestStack({ db, mailer: () => Promise.resolve(mail) });
    const fake = stack.razorpay!;
    /** Pays at the fake's Checkout by `method`, then verify-payment, then the webhooks (held till then). */
    const payAndVerify = async (orderId: string, method: "card" | "upi") => {
      const { providerOrderId } = await startPayment(stack, orderId);
      fake.webhooks.held = true;
      const answer = await fake.pay(providerOrderId, { method, notes: { orderId } });
      const verified = await postFunction(stack, "verify-payment", verifyBody(orderId, answer));
      const body = await verified.json();
      await fake.webhooks.release();
      await stack.settled();
      return body;
    };
    const emailsOf = (orderId: string) =>
      mail.messages.filter((m) => m.idempotencyKey.startsWith(`order/${orderId}/`));
    return { stack, fake, payAndVerify, emailsOf };
  };

  test("verify-payment and then the webhook for the same payment: one decision, one paid e-mail to the buyer and one to the seller, Reply-To the buyer", async () => {
    const { stack, fake, payAndVerify, emailsOf } = await paymentStack();
    try {
      const { orderId, orderNumber } = await placeOrder(db);
      const verified = await payAndVerify(orderId, "card");
      assert.deepEqual([verified.status, verified.outcome], ["paid", "paid"]);
      const webhookOutcomes = fake.webhooks.deliveries.filter((d) => d.body.includes(orderId)).map((d) =>
        d.status
      );
      assert.deepEqual(webhookOutcomes, [200, 200]);
      const outcomes = await db.query<{ outcome: string }>(
        "select outcome from public.payments where order_id = $1 order by received_at, provider_event_id",
        [orderId],
      );
      assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ["already_paid", "already_paid", "paid"]);
      const paid = emailsOf(orderId).filter((m) => m.subject.startsWith("Payment received"))
        .sort((a, b) => a.idempotencyKey.localeCompare(b.idempotencyKey));
      const [{ owner_email: owner }] = await db.query<{ owner_email: string }>(
        "select s.owner_email from public.orders o join public.stores s on s.id = o.store_id where o.id = $1",
        [orderId],
      );
      assert.deepEqual(paid.map((m) => [m.idempotencyKey, m.to, m.replyTo]), [
        [`order/${orderId}/seller/paid`, owner, "asha@example.com"],
        [`order/${orderId}/status/paid`, "asha@example.com", owner],
      ]);
      assert.equal(paid[0].subject, `Payment received for ${orderNumber}: ready to ship`);
      assert.match(paid[0].text, /Received: ₹715\.45, paid by card, confirmed by the gateway\./);
      assert.match(paid[0].text, /Assam Tea 250 g/);
    } finally {
      await stack.close();
    }
  });

  test("a card payment of an order priced as UPI pays it with its fee shortfall, and both paid e-mails say card", async () => {
    const { stack, payAndVerify, emailsOf } = await paymentStack();
    try {
      const { orderId } = await placeOrder(db, "upi");
      const verified = await payAndVerify(orderId, "card");
      assert.deepEqual([verified.status, verified.outcome], ["paid", "paid"]);
      const [row] = await db.query<{ method: string; fee_shortfall: string }>(
        "select method, fee_shortfall::text from public.payments where order_id = $1 and outcome = 'paid'",
        [orderId],
      );
      assert.deepEqual(row, { method: "card", fee_shortfall: "349" });
      const buyer = emailsOf(orderId).find((m) => m.idempotencyKey === `order/${orderId}/status/paid`)!;
      const seller = emailsOf(orderId).find((m) => m.idempotencyKey === `order/${orderId}/seller/paid`)!;
      assert.match(
        buyer.text,
        /Paid online through the payment gateway \(card\), confirmed by the gateway\./,
      );
      assert.doesNotMatch(buyer.text, /UPI/);
      assert.match(seller.text, /paid by card/);
      assert.match(seller.text, /The buyer chose UPI at checkout and paid by card\./);
      assert.match(seller.text, /Fee shortfall: ₹3\.49\./);
    } finally {
      await stack.close();
    }
  });

  test("a gateway payment of an order the seller had marked paid is its payment, and sends no paid e-mail to either side", async () => {
    const { stack, fake, emailsOf } = await paymentStack();
    try {
      const { orderId } = await placeOrder(db);
      const { providerOrderId } = await startPayment(stack, orderId);
      await (await postStatusMove(stack, { orderId, status: "paid", note: "Buyer showed the receipt" })).body
        ?.cancel();
      await fake.pay(providerOrderId, { method: "card", notes: { orderId } });
      await fake.webhooks.settled();
      await stack.settled();
      const [row] = await db.query<{ outcome: string }>(
        "select outcome from public.payments where order_id = $1 order by received_at limit 1",
        [orderId],
      );
      assert.equal(row.outcome, "paid");
      // the buyer's paid e-mail is the seller's move's; the gateway's payment adds none, and no "ready to ship"
      assert.deepEqual(
        emailsOf(orderId).filter((m) => m.subject.startsWith("Payment received")).map((m) =>
          m.idempotencyKey
        ),
        [`order/${orderId}/status/paid`],
      );
    } finally {
      await stack.close();
    }
  });
}
