/**
 * E-mails are read and superseded when they are sent, not when they are claimed (contract, "Under concurrency,
 * at scale, on a slow day": an e-mail never contradicts the order). Pins issue 17's e-mails claimed while their
 * order awaited payment and sent after it was paid, or paid and cancelled: the buyer was told "Awaiting
 * payment" and the seller "Do not ship before the gateway has reported the payment". Each test claims, changes
 * the order, then sends, and reads what the fake Resend delivered; through supabase-js and the PostgREST
 * stand-in, the real Resend SDK against the fake Resend over loopback, on PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { startFakeResend } from "../local/fake_resend.ts";
import { startDrainRun } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { sendOrderEmails } from "../supabase/functions/_shared/email/outbox_sender.ts";
import { sendPaced } from "../supabase/functions/_shared/email/paced_sends.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { sendWorkOf } from "../supabase/functions/_shared/email/send_work.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { gatewayOrderBody } from "./support/order_request.ts";
import { claimAll, createOrderWithEmails, outboxRows, serveOutbox } from "./support/outbox_orders.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { fakeSleep } from "./support/recording_outbox.ts";
import { postStatusMove } from "./support/status_moves.ts";

const ENV = { RESEND_API_KEY: "re_test", RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };
const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
/** A gateway/card order of two Assam Tea: 698.00 + 17.45 card fee. */
const FINAL = "₹715.45";

/** The lines of an e-mail's PAYMENT section. */
function paymentSection(text: string): string[] {
  const lines = text.split("\n");
  const start = lines.indexOf("PAYMENT");
  assert.ok(start >= 0, text);
  return lines.slice(start + 1, lines.indexOf("", start));
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /**
   * A gateway order whose request path could not send its two e-mails (refused for sure: 422), claimed now by
   * a drain's claim, while the order still awaits its payment; `fake` delivers from then on.
   */
  const claimedWhileUnpaid = async (fake: ReturnType<typeof startFakeResend>) => {
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
    const served = serveOutbox(db);
    const claimed = await claimAll(served.outbox);
    const ours = claimed.emails.filter((email) => email.orderId === order.orderId);
    assert.deepEqual(
      ours.map((email) => [email.kind, (email.payload as { status?: string }).status]).sort(),
      [
        ["buyer", "payment_pending"],
        ["seller", "payment_pending"],
      ],
    );
    return { store, stack, served, order, claimed: claimed.emails };
  };

  /** Sends what was claimed, as a drain run sends its claims. */
  const send = (
    served: ReturnType<typeof serveOutbox>,
    fake: { url: string },
    claimed: Parameters<typeof sendWorkOf>[0],
  ) => {
    const run = startDrainRun({
      mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 5_000 }),
      outbox: served.outbox,
      render,
      log: () => {},
      limits: { budgetMs: 5_000, sendTimeoutMs: 5_000, requestsPerSecond: Infinity },
    });
    const work = sendWorkOf(claimed);
    return sendPaced(() => Promise.resolve(work.splice(0)), run.send);
  };

  test("sendPaced() renders e-mails claimed while the order awaited payment from the order as it is when they go: paid since, both say paid", async () => {
    const fake = startFakeResend();
    const { store, stack, served, order, claimed } = await claimedWhileUnpaid(fake);
    try {
      const paid = await postRazorpayEvent(
        stack,
        paymentCapturedEvent({ orderId: order.orderId, amount: Math.round(order.finalAmount * 100) }),
      );
      assert.equal((await paid.json()).outcome, "paid");
      await stack.settled();

      const summary = await send(served, fake, claimed);
      assert.deepEqual([summary.claimed, summary.sent, summary.superseded], [2, 2, 0]);
      const delivered = fake.delivered.filter((d) => d.subject.includes(order.orderNumber));
      const buyer = delivered.find((d) => d.subject.startsWith("Your order"))!;
      assert.deepEqual(paymentSection(buyer.text), [
        "Paid online through the payment gateway (UPI), confirmed by the gateway.",
      ]);
      const seller = delivered.find((d) => d.subject.startsWith("New order"))!;
      assert.equal(seller.to, store.ownerEmail);
      assert.equal(seller.subject, `New order ${order.orderNumber}: ${FINAL}, paid`);
      assert.deepEqual(paymentSection(seller.text), [
        "Paid online through the payment gateway (UPI), confirmed by the gateway.",
      ]);
    } finally {
      await served.close();
      await stack.close();
      await fake.close();
    }
  });

  test("sendPaced() supersedes at send time: claimed while unpaid, paid and cancelled since, the seller's alert is not sent and the buyer's confirmation says cancelled and refunded", async () => {
    const fake = startFakeResend();
    const { stack, served, order, claimed } = await claimedWhileUnpaid(fake);
    try {
      await postRazorpayEvent(
        stack,
        paymentCapturedEvent({ orderId: order.orderId, amount: Math.round(order.finalAmount * 100) }),
      );
      const cancelled = await postStatusMove(stack, {
        orderId: order.orderId,
        status: "cancelled",
        note: "Out of stock",
      });
      assert.equal(cancelled.status, 200, await cancelled.text());
      await stack.settled();

      const summary = await send(served, fake, claimed);
      assert.deepEqual([summary.claimed, summary.sent, summary.superseded, summary.released], [2, 1, 1, 0]);
      assert.deepEqual(
        (await outboxRows(db, [order.orderId])).filter((r) => r.kind === "buyer" || r.kind === "seller")
          .map((r) => [r.kind, r.status]),
        [["buyer", "sent"], ["seller", "superseded"]],
      );
      const delivered = fake.delivered.filter((d) => d.subject.includes(order.orderNumber));
      assert.deepEqual(
        delivered.filter((d) => d.subject.startsWith("New order")),
        [],
        "the seller was told nothing",
      );
      const buyer = delivered.filter((d) =>
        d.subject.startsWith("Your order") && d.text.startsWith("Thank you")
      );
      assert.equal(buyer.length, 1);
      assert.deepEqual(paymentSection(buyer[0].text), [
        "This order has been cancelled.",
        `A payment of ${FINAL} was received for this order through the payment gateway.`,
        `As the order is cancelled, ${FINAL} is being refunded to you through the payment gateway: you will get an e-mail when the refund is issued, and banks take 5–7 working days to credit it.`,
      ]);
      assert.ok(!/Awaiting payment|Do not ship|Pay ₹/.test(buyer[0].text), buyer[0].text);
    } finally {
      await served.close();
      await stack.close();
      await fake.close();
    }
  });

  test("sendOrderEmails() reads a row again before its retry: paid and cancelled during the back-off, the seller's alert is not sent and the buyer's says so", async () => {
    const fake = startFakeResend();
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" } });
    const served = serveOutbox(db);
    try {
      const emails = await createOrderWithEmails(db, store); // a upi_direct order; its two e-mails claimed
      const orderId = emails[0].orderId;
      let moves: Promise<void> | undefined;
      // the seller confirms the transfer and then cancels, while the first tries' back-off runs
      const sleep = () =>
        moves ??= (async () => {
          for (const move of [{ status: "paid" }, { status: "cancelled", note: "Out of stock" }]) {
            const res = await postStatusMove(stack, { orderId, ...move });
            assert.equal(res.status, 200, await res.text());
          }
        })();
      fake.script({ status: 429, retryAfter: 1 }, { status: 429, retryAfter: 1 });
      await sendOrderEmails(emails, {
        mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 5_000 }),
        outbox: served.outbox,
        render,
        sleep,
        log: () => {},
      });
      assert.deepEqual(
        (await outboxRows(db, [orderId])).filter((r) => !r.kind.startsWith("status_")).map((
          r,
        ) => [r.kind, r.status]),
        [["buyer", "sent"], ["seller", "superseded"]],
      );
      const keys = fake.requests.map((r) => r.idempotencyKey).filter((key) =>
        key?.startsWith(`order/${orderId}/`)
      );
      assert.deepEqual(
        keys.sort(),
        [`order/${orderId}/buyer`, `order/${orderId}/buyer`, `order/${orderId}/seller`],
        "the seller's alert was tried once, refused by the rate limit, and never again",
      );
      assert.deepEqual(fake.delivered.filter((d) => d.to === store.ownerEmail), []);
      const buyer = fake.delivered.filter((d) => d.idempotencyKey === `order/${orderId}/buyer`);
      assert.equal(buyer.length, 1);
      assert.deepEqual(paymentSection(buyer[0].text), [
        "This order has been cancelled.",
        "Test Store had confirmed receiving your payment (₹997.00).",
        "As the order is cancelled, Test Store will return ₹997.00 to you itself: reply to this e-mail to arrange it with Test Store.",
      ]);
    } finally {
      await served.close();
      await stack.close();
      await fake.close();
    }
  });
}
