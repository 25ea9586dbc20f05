/** The buyer e-mail's tracking link carries the order's token, whichever sender sends it. */
import assert from "node:assert/strict";
import { drainOutbox } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { sendOrderEmails } from "../supabase/functions/_shared/email/outbox_sender.ts";
import { orderTrackingToken } from "../supabase/functions/_shared/orders/tracking_token.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { orderEmailData, outboxEmail } from "./support/order_emails.ts";
import { fakeSleep, recordingOutbox } from "./support/recording_outbox.ts";

const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/track?order={orderId}&token={token}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};

Deno.test("sendOrderEmails() and drainOutbox() put each order's own tracking token into the buyer's link", async () => {
  const orders = [
    orderEmailData({ orderId: crypto.randomUUID() }),
    orderEmailData({ orderId: crypto.randomUUID() }),
  ];
  const mailer = capturingMailer();
  await sendOrderEmails([outboxEmail("buyer", orders[0]), outboxEmail("seller", orders[0])], {
    mailer,
    outbox: recordingOutbox(),
    render,
    log: () => {},
  });
  await drainOutbox({
    mailer,
    outbox: recordingOutbox([outboxEmail("buyer", orders[1], { attempts: 1 })]),
    render,
    sleep: fakeSleep().sleep,
    log: () => {},
  });
  const buyerMails = mailer.messages.filter((m) => m.idempotencyKey.endsWith("/buyer"));
  assert.equal(buyerMails.length, 2);
  for (const [i, order] of orders.entries()) {
    const token = await orderTrackingToken(render.trackingSecret, order.orderId);
    const link = `https://shop.example.com/track?order=${order.orderId}&token=${token}`;
    assert.ok(buyerMails[i].text.includes(`Track your order: ${link}`), buyerMails[i].text);
  }
  // the seller's alert has no tracking link, token or not
  const seller = mailer.messages.find((m) => m.idempotencyKey.endsWith("/seller"))!;
  assert.ok(!seller.text.includes("token="));
});
