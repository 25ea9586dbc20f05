/**
 * Money goes back by itself, over HTTP on the local stack with the fake Razorpay (contract, "Money goes back
 * by itself"): a seller's cancellation of a paid order makes one refund, which the next outbox-drain run
 * issues once through Razorpay and Razorpay's signed refund.processed settles, with one refund e-mail to the
 * buyer; a ₹1 payment is refunded and its order cancelled by the clock with its stock back; a refund Razorpay
 * keeps refusing is `failed` after 10 runs and reported in the drain's answer; a upi_direct transfer the
 * seller confirmed is returned by the store (`manual`): no call to Razorpay, no refund e-mail.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { ageOrder } from "./support/order_age.ts";
import { placeOrder, startPayment } from "./support/payments.ts";
import { refundRows } from "./support/refunds.ts";
import { setStock, stockOf } from "./support/stock.ts";
import { orderStatus, postStatusMove } from "./support/status_moves.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** A stack with a capturing mailer, its fake Razorpay, and one drain run at a time. */
  const refundStack = async () => {
    const mail = capturingMailer();
    const lines: Record<string, unknown>[] = [];
    const stack = await startTestStack({
      db,
      mailer: () => Promise.resolve(mail),
      env: { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" },
      log: (line) => void lines.push(line),
    });
    const fake = stack.razorpay!;
    const drain = async () => {
      const res = await fetch(`${stack.url}/functions/v1/outbox-drain`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ minAgeSeconds: 0 }),
      });
      assert.equal(res.status, 200);
      return await res.json();
    };
    /** Pays the order at the fake's Checkout for `amount` paise (its kept Razorpay order's, by default). */
    const pay = async (orderId: string, options: { method?: "card" | "upi"; paise?: number } = {}) => {
      const providerOrderId = options.paise === undefined
        ? (await startPayment(stack, orderId)).providerOrderId
        : (fake.ledger.createOrder({ amount: options.paise, currency: "INR", notes: { orderId } }) as {
          id: string;
        })
          .id;
      const answer = await fake.pay(providerOrderId, {
        method: options.method ?? "card",
        notes: { orderId },
      });
      if ("error" in answer) throw new Error(answer.error.description);
      await fake.webhooks.settled();
      await stack.settled();
      return answer.razorpay_payment_id;
    };
    const refundEmails = (orderId: string) =>
      mail.messages.filter((m) => m.idempotencyKey.startsWith(`order/${orderId}/refund/`));
    const refundCalls = (paymentId: string) =>
      fake.requests.filter((r) => r.operation.startsWith("refunds.") && r.path.includes(paymentId));
    return { stack, fake, mail, lines, drain, pay, refundEmails, refundCalls };
  };

  test("a seller's cancellation of a paid order: one refund, issued once by the next drain run, processed on Razorpay's webhook, one refund e-mail", async () => {
    const { stack, fake, lines, drain, pay, refundEmails, refundCalls } = await refundStack();
    try {
      const { orderId, orderNumber } = await placeOrder(db);
      const paymentId = await pay(orderId, { method: "card" });
      assert.equal(await orderStatus(db, orderId), "paid");
      const cancelled = await postStatusMove(stack, { orderId, status: "cancelled", note: "Out of stock" });
      assert.deepEqual((await cancelled.json()).refund, { amount: 715.45, status: "pending" });
      await stack.settled();

      const run = await drain();
      assert.ok(run.refunds.issued >= 1, JSON.stringify(run.refunds));
      // the run's log counts what its answer counts: the refunds issued in it
      const { issued, adopted, failed, released } = run.refunds;
      const [counted] = lines.filter((l) => l.event === "refund.drain_run");
      assert.deepEqual(counted, { event: "refund.drain_run", issued, adopted, failed, released });
      const [request] = lines.filter((l) => l.event === "outbox_drain");
      assert.deepEqual(
        [request.refundsIssued, request.refundsAdopted, request.refundsFailed, request.refundsReleased],
        [issued, adopted, failed, released],
      );
      const [made] = [...fake.ledger.refunds.values()].filter((r) => r.payment_id === paymentId);
      const [refund] = await refundRows(db, orderId);
      assert.deepEqual([refund.status, refund.provider_refund_id, made.receipt, made.amount], [
        "issued",
        made.id,
        refund.id,
        71_545,
      ]);
      const emails = refundEmails(orderId);
      assert.deepEqual(emails.map((m) => [m.idempotencyKey, m.to, m.replyTo, m.subject]), [[
        `order/${orderId}/refund/${refund.id}`,
        "asha@example.com",
        emails[0].replyTo,
        `Refund of ₹715.45 for your order ${orderNumber} at Chai & Co`,
      ]]);
      assert.ok(emails[0].replyTo?.startsWith("owner-"), emails[0].replyTo);
      assert.match(emails[0].text, /to the card you paid with/);
      assert.match(emails[0].text, /Banks take 5–7 working days/);

      // the next runs issue nothing more
      await drain();
      assert.deepEqual(refundCalls(paymentId).map((r) => r.operation), ["refunds.list", "refunds.create"]);

      // Razorpay credits it: refund.processed, signed, to payment-webhook
      fake.ledger.settleRefund(made.id, "processed");
      await fake.webhooks.settled();
      const event = fake.webhooks.deliveries.find((d) => d.event === "refund.processed")!;
      assert.equal(event.status, 200);
      assert.deepEqual((await refundRows(db, orderId)).map((r) => r.status), ["processed"]);
      await drain();
      assert.equal(refundEmails(orderId).length, 1);
    } finally {
      await stack.close();
    }
  });

  test("a payment of the wrong amount is refunded, and the clock cancels its order with the stock back", async () => {
    const { stack, fake, drain, pay, refundEmails } = await refundStack();
    try {
      const store = await createTestStore(db);
      await setStock(db, { productId: store.products[0].id }, 10);
      const { response } = await callCreateOrder(db, createOrderPayload(store));
      const orderId = response.orderId;
      assert.deepEqual(await stockOf(db, { productId: store.products[0].id }), [8]);
      const paymentId = await pay(orderId, { paise: 100 });
      assert.deepEqual((await refundRows(db, orderId)).map((r) => [r.outcome, r.amount, r.status]), [
        ["amount_mismatch", "1.00", "pending"],
      ]);
      await ageOrder(db, orderId, 31);

      const run = await drain();
      assert.ok(run.unpaidOrders.orderIds.includes(orderId), JSON.stringify(run.unpaidOrders));
      assert.equal(await orderStatus(db, orderId), "cancelled");
      assert.deepEqual(await stockOf(db, { productId: store.products[0].id }), [10]);
      assert.deepEqual(
        [...fake.ledger.refunds.values()].filter((r) => r.payment_id === paymentId).map((r) => r.amount),
        [100],
      );
      assert.deepEqual((await refundRows(db, orderId)).map((r) => r.status), ["issued"]);
      assert.equal(refundEmails(orderId).length, 1);
    } finally {
      await stack.close();
    }
  });

  test("a refund Razorpay keeps refusing is retried by each run, failed after the tenth, and reported by the drain's answer", async () => {
    const { stack, fake, drain, pay } = await refundStack();
    try {
      const { orderId } = await placeOrder(db);
      const paymentId = await pay(orderId);
      await (await postStatusMove(stack, { orderId, status: "cancelled", note: "Out of stock" })).body
        ?.cancel();
      const [refund] = await refundRows(db, orderId);
      let last;
      for (let run = 1; run <= 10; run++) {
        fake.fail("refunds.create", {
          status: 400,
          description: "Your account does not have enough balance",
        });
        last = await drain();
        assert.equal(
          last.failedRefunds.some((f: { refundId: string }) => f.refundId === refund.id),
          run === 10,
          `run ${run}`,
        );
      }
      assert.deepEqual(last.failedRefunds.find((f: { refundId: string }) => f.refundId === refund.id), {
        refundId: refund.id,
        orderId,
      });
      const [row] = await refundRows(db, orderId);
      assert.deepEqual([row.status, row.attempts], ["failed", 10]);
      // tried no more, and still reported
      const after = await drain();
      assert.equal(
        fake.requests.filter((r) => r.operation === "refunds.create" && r.path.includes(paymentId)).length,
        10,
      );
      assert.ok(after.failedRefunds.some((f: { refundId: string }) => f.refundId === refund.id));
    } finally {
      await stack.close();
    }
  });

  test("a upi_direct transfer the seller confirmed is returned by the store: a manual refund, no call to Razorpay, no refund e-mail", async () => {
    const { stack, fake, mail, drain } = await refundStack();
    try {
      const { orderId } = await placeOrder(db, "upi_direct");
      await (await postStatusMove(stack, { orderId, status: "paid", note: "UPI transfer checked" })).body
        ?.cancel();
      const cancelled = await postStatusMove(stack, { orderId, status: "cancelled", note: "Out of stock" });
      assert.deepEqual((await cancelled.json()).refund, { amount: 698, status: "manual" });
      await stack.settled();
      const before = fake.requests.length;
      await drain();
      assert.deepEqual(fake.requests.slice(before).filter((r) => r.operation.startsWith("refunds.")), []);
      assert.deepEqual((await refundRows(db, orderId)).map((r) => r.status), ["manual"]);
      const ours = mail.messages.filter((m) => m.idempotencyKey.startsWith(`order/${orderId}/`));
      assert.equal(ours.filter((m) => m.idempotencyKey.includes("/refund/")).length, 0);
      const cancelledEmail = ours.find((m) => m.idempotencyKey === `order/${orderId}/status/cancelled`)!;
      assert.match(cancelledEmail.text, /will return ₹698\.00 to you itself/);
    } finally {
      await stack.close();
    }
  });
}
