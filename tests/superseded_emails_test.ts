/**
 * An e-mail never contradicts the order (contract, "Under concurrency, at scale, on a slow day"): the drain
 * renders an order's e-mails from its rows as they are when it sends, and an e-mail that would ask someone to
 * act on a state the order has left is marked `superseded` and never sent. Pins the two e-mails drained late
 * in issue 17: a seller told "New order ... Do not ship before the gateway has reported the payment" for an
 * order paid and cancelled since, and a buyer told "Awaiting payment" for an order they had paid. Through the
 * local stack and the real Resend SDK against the fake Resend, on PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { startFakeResend } from "../local/fake_resend.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { gatewayOrderBody } from "./support/order_request.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { fakeSleep } from "./support/recording_outbox.ts";
import { postStatusMove } from "./support/status_moves.ts";

/** The buyer's order confirmation (not a status e-mail). */
const isConfirmation = (d: { text: string }) => d.text.startsWith("Thank you for your order.");

const ENV = { RESEND_API_KEY: "re_test", RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** The outbox rows of an order: kind and status. */
  const rows = (orderId: string) =>
    db.query<{ kind: string; status: string }>(
      "select kind, status from public.email_outbox where order_id = $1 order by kind",
      [orderId],
    );

  /** A gateway order whose request path could not send its two e-mails (refused: 422), paid by the gateway. */
  const paidOrderWithUnsentEmails = async (fake: ReturnType<typeof startFakeResend>) => {
    const store = await createTestStore(db);
    const stack = await startTestStack({
      db,
      mailer: undefined, // Resend through its SDK, against the fake
      sleep: fakeSleep().sleep,
      env: { ...ENV, RESEND_BASE_URL: fake.url },
    });
    fake.script({ status: 422 }, { status: 422 });
    const order = await (await stack.post(gatewayOrderBody(store, "card"))).json();
    await stack.settled();
    // the buyer's `paid` e-mail and the seller's "ready to ship", sent after the webhook's answer, fail too
    fake.script({ status: 422 }, { status: 422 });
    const paid = await postRazorpayEvent(
      stack,
      paymentCapturedEvent({ orderId: order.orderId, amount: Math.round(order.finalAmount * 100) }),
    );
    assert.equal((await paid.json()).outcome, "paid");
    await stack.settled();
    assert.deepEqual(await rows(order.orderId), [
      { kind: "buyer", status: "failed" },
      { kind: "seller", status: "failed" },
      { kind: "seller_paid", status: "failed" },
      { kind: "status_paid", status: "failed" },
    ]);
    return { store, stack, order };
  };

  const drain = (stack: { url: string; serviceKey: string }) =>
    fetch(`${stack.url}/functions/v1/outbox-drain`, {
      method: "POST",
      headers: { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ minAgeSeconds: 0 }),
    }).then((res) => res.json());

  test("POST outbox-drain marks the seller's new-order alert and the paid e-mail of an order since cancelled superseded, and sends the buyer's confirmation saying it was paid, is cancelled and how the money goes back", async () => {
    const fake = startFakeResend();
    const { store, stack, order } = await paidOrderWithUnsentEmails(fake);
    try {
      const cancelled = await postStatusMove(stack, {
        orderId: order.orderId,
        status: "cancelled",
        note: "Out of stock",
      });
      assert.equal(cancelled.status, 200, await cancelled.text());
      await stack.settled(); // the buyer's cancelled e-mail goes on the request path

      const report = await drain(stack);
      assert.equal(report.emails.superseded, 3);
      assert.deepEqual(await rows(order.orderId), [
        { kind: "buyer", status: "sent" },
        { kind: "seller", status: "superseded" },
        { kind: "seller_paid", status: "superseded" },
        { kind: "status_cancelled", status: "sent" },
        { kind: "status_paid", status: "superseded" },
      ]);
      const ours = fake.delivered.filter((d) => d.subject.includes(order.orderNumber));
      assert.deepEqual(ours.filter((d) => d.to === store.ownerEmail), [], "the seller was told nothing");
      const confirmation = ours.filter(isConfirmation);
      assert.equal(confirmation.length, 1);
      // paid before it was cancelled: the money is due back, and the confirmation says how it goes
      assert.ok(
        confirmation[0].text.includes(
          "PAYMENT\nThis order has been cancelled.\n" +
            "A payment of ₹715.45 was received for this order through the payment gateway.\n" +
            "As the order is cancelled, ₹715.45 is being refunded to you through the payment gateway: you will " +
            "get an e-mail when the refund is issued, and banks take 5–7 working days to credit it.\n\n",
        ),
        confirmation[0].text,
      );
      assert.ok(!confirmation[0].text.includes("Awaiting payment"));
      assert.equal(ours.filter((d) => d.subject.startsWith("Payment received")).length, 0);

      // superseded rows are kept and never claimed again
      const again = await drain(stack);
      assert.equal(again.emails.superseded, 0);
      assert.equal(fake.delivered.filter((d) => d.subject.includes(order.orderNumber)).length, ours.length);
    } finally {
      await stack.close();
      await fake.close();
    }
  });

  test("POST outbox-drain sends the buyer's confirmation of an order paid since with its payment, never 'Awaiting payment'", async () => {
    const fake = startFakeResend();
    const { store, stack, order } = await paidOrderWithUnsentEmails(fake);
    try {
      const report = await drain(stack);
      assert.equal(report.emails.superseded, 0);
      assert.deepEqual(await rows(order.orderId), [
        { kind: "buyer", status: "sent" },
        { kind: "seller", status: "sent" },
        { kind: "seller_paid", status: "sent" },
        { kind: "status_paid", status: "sent" },
      ]);
      const ours = fake.delivered.filter((d) => d.subject.includes(order.orderNumber));
      const buyer = ours.find(isConfirmation)!;
      // the fixture's payment is Razorpay's UPI sample: the method actually used, not the card chosen
      assert.ok(
        buyer.text.includes("Paid online through the payment gateway (UPI), confirmed by the gateway."),
        buyer.text,
      );
      assert.ok(!buyer.text.includes("Awaiting payment"), buyer.text);
      const seller = ours.find((d) => d.to === store.ownerEmail && d.subject.startsWith("New order"))!;
      assert.match(seller.subject, /, paid$/);
      assert.ok(
        !seller.text.includes("Do not ship before the gateway has reported the payment"),
        seller.text,
      );
    } finally {
      await stack.close();
      await fake.close();
    }
  });
}
