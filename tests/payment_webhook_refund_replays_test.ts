/**
 * Refund events are decided once per event id, as payment events are: Razorpay sends an event again under the
 * same `x-razorpay-event-id` until it is answered 200, and anyone holding a signed body can replay it. A
 * replay is acknowledged (`replayed: true`) and changes nothing: no second refund e-mail, no second
 * `refund.failed` log line, no refund failed again after a person set it pending. Delivered out of order, a
 * `refund.failed` after `refund.processed` of the same refund leaves it processed.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { placeOrder } from "./support/payments.ts";
import { paymentCapturedEvent, postRazorpayEvent, refundEvent } from "./support/razorpay_events.ts";
import { refundRows } from "./support/refunds.ts";

/** The refund e-mails of an order in the outbox. */
async function refundEmails(db: SqlDatabase, orderId: string): Promise<number> {
  const [{ count }] = await db.query<{ count: number }>(
    "select count(*)::int as count from public.email_outbox where order_id = $1 and kind = 'refund'",
    [orderId],
  );
  return count;
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** A stack whose log lines are kept, and a refund due on it: a ₹1 payment of a new order. */
  const refundStack = async () => {
    const lines: Record<string, unknown>[] = [];
    const stack = await startTestStack({ db, log: (line) => void lines.push(line) });
    const refundDue = async () => {
      const { orderId } = await placeOrder(db);
      const paymentId = `pay_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`;
      const paid = await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: 100, paymentId }));
      assert.equal((await paid.json()).refundDue, true);
      const [refund] = await refundRows(db, orderId);
      return { orderId, paymentId, refundId: refund.id, providerRefundId: `rfnd_R${paymentId.slice(4)}` };
    };
    return { stack, lines, refundDue };
  };

  test("POST payment-webhook answers refund.processed sent again under its event id as the first and changes nothing: one refund e-mail", async () => {
    const { stack, refundDue } = await refundStack();
    try {
      const due = await refundDue();
      const event = refundEvent("processed", {
        paymentId: due.paymentId,
        receipt: due.refundId,
        refundId: due.providerRefundId,
        amount: 100,
      });
      const eventId = `evt_P${due.paymentId.slice(4)}`;
      const first = await postRazorpayEvent(stack, event, { eventId });
      const again = await postRazorpayEvent(stack, event, { eventId });
      const settled = {
        received: true,
        refundId: due.refundId,
        orderId: due.orderId,
        refundStatus: "processed",
      };
      assert.deepEqual([await first.json(), await again.json()], [
        { ...settled, changed: true, replayed: false },
        { ...settled, changed: false, replayed: true },
      ]);
      assert.equal(await refundEmails(db, due.orderId), 1);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook answers refund.failed sent again under its event id without failing the refund a person set pending again, and logs it once", async () => {
    const { stack, lines, refundDue } = await refundStack();
    try {
      const due = await refundDue();
      const event = refundEvent("failed", {
        paymentId: due.paymentId,
        receipt: due.refundId,
        refundId: due.providerRefundId,
        amount: 100,
      });
      const eventId = `evt_F${due.paymentId.slice(4)}`;
      const first = await postRazorpayEvent(stack, event, { eventId });
      assert.deepEqual([(await first.json()).refundStatus, (await refundRows(db, due.orderId))[0].status], [
        "failed",
        "failed",
      ]);
      // docs/operate.md, "Refunds": a person has the drain try again
      await db.query("update public.refunds set status = 'pending', attempts = 0 where id = $1", [
        due.refundId,
      ]);
      const again = await postRazorpayEvent(stack, event, { eventId });
      assert.deepEqual(await again.json(), {
        received: true,
        refundId: due.refundId,
        orderId: due.orderId,
        refundStatus: "pending",
        changed: false,
        replayed: true,
      });
      assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
      assert.equal(lines.filter((l) => l.event === "refund.failed" && l.refundId === due.refundId).length, 1);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook keeps a refund processed when its refund.failed arrives after refund.processed", async () => {
    const { stack, refundDue } = await refundStack();
    try {
      const due = await refundDue();
      const refund = {
        paymentId: due.paymentId,
        receipt: due.refundId,
        refundId: due.providerRefundId,
        amount: 100,
      };
      const processed = await postRazorpayEvent(stack, refundEvent("processed", refund));
      const failed = await postRazorpayEvent(stack, refundEvent("failed", refund));
      assert.deepEqual(
        [await processed.json(), await failed.json()].map((a) => [a.refundStatus, a.changed, a.replayed]),
        [["processed", true, false], ["processed", false, false]],
      );
      assert.deepEqual((await refundRows(db, due.orderId)).map((r) => r.status), ["processed"]);
      assert.equal(await refundEmails(db, due.orderId), 1);
    } finally {
      await stack.close();
    }
  });
}
