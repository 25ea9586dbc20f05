/**
 * issueDueRefunds(), the drain's refund job, against the fake Razorpay over HTTP and the database through
 * the local PostgREST (the adapters the outbox-drain function uses): adopt-before-create, so a refund is
 * made at Razorpay once whatever fails between its answer and our commit; Razorpay's errors and silence
 * retried by later runs; `failed` after the tenth attempt; and every call within the run's budget.
 */
import assert from "node:assert/strict";
import { createDatabaseClient } from "../supabase/functions/_shared/database_client.ts";
import { razorpayApi } from "../supabase/functions/_shared/payments/razorpay_api.ts";
import {
  FAILURES_BEFORE_PAUSE,
  issueDueRefunds,
  type RefundRunBudget,
} from "../supabase/functions/_shared/payments/refund_issuing.ts";
import { supabaseRefunds } from "../supabase/functions/_shared/payments/supabase_refunds.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { placeOrder, startPayment } from "./support/payments.ts";
import { refundRows } from "./support/refunds.ts";
import { postStatusMove } from "./support/status_moves.ts";

/** A run's budget of `budgetMs` (each request at most `timeoutMs`), as the drain's RunBudget gives it. */
function budget(budgetMs = 30_000, timeoutMs = 5_000): RefundRunBudget {
  const start = Date.now();
  return {
    open: () => Date.now() < start + budgetMs,
    requestTimeoutMs: () => Math.max(0, Math.min(timeoutMs, start + budgetMs + timeoutMs - 250 - Date.now())),
    claimMs: () => Math.max(1, start + budgetMs + timeoutMs + 250 - Date.now()),
    elapsedMs: () => Date.now() - start,
  };
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** A stack, its fake Razorpay, and a run of the job with the adapters the drain uses. */
  const refundStack = async (options: { timeoutMs?: number } = {}) => {
    // the refunds earlier tests left due are of payments at their own fakes: a person takes them over
    await db.query(
      "update public.refunds set status = 'manual', claim_token = null, claim_expires_at = null where status = 'pending'",
    );
    const stack = await startTestStack({ db });
    const fake = stack.razorpay!;
    const refunds = supabaseRefunds(createDatabaseClient(stack.url, stack.serviceKey));
    const provider = razorpayApi({
      keyId: fake.keyId,
      keySecret: fake.keySecret,
      baseUrl: fake.url,
      timeoutMs: options.timeoutMs ?? 5_000,
    });
    const lines: Record<string, unknown>[] = [];
    const run = async (runBudget = budget()) =>
      (await issueDueRefunds({
        refunds,
        provider,
        budget: runBudget,
        log: (line) => lines.push(line),
        minAgeSeconds: 0,
      })).report;
    /** A gateway order paid at the fake and cancelled by the seller: its refund is due. */
    const cancelledPaidOrder = async () => {
      const { orderId } = await placeOrder(db);
      const { providerOrderId } = await startPayment(stack, orderId);
      const answer = await fake.pay(providerOrderId, { method: "card", notes: { orderId } });
      if ("error" in answer) throw new Error(answer.error.description);
      await fake.webhooks.settled();
      const cancelled = await postStatusMove(stack, { orderId, status: "cancelled", note: "Out of stock" });
      assert.deepEqual((await cancelled.json()).refund, { amount: 715.45, status: "pending" });
      const [refund] = await refundRows(db, orderId);
      return { orderId, paymentId: answer.razorpay_payment_id, refundId: refund.id };
    };
    /** The fake's refunds of a payment. */
    const fakeRefunds = (paymentId: string) =>
      [...fake.ledger.refunds.values()].filter((refund) => refund.payment_id === paymentId);
    return { stack, fake, run, lines, cancelledPaidOrder, fakeRefunds };
  };

  test("issueDueRefunds() issues a pending refund once: Razorpay's list, then its create with our receipt, speed and notes; the next run issues nothing", async () => {
    const { stack, fake, run, cancelledPaidOrder, fakeRefunds } = await refundStack();
    try {
      const due = await cancelledPaidOrder();
      const before = fake.requests.length;
      const first = await run();
      assert.ok(first.issued >= 1, JSON.stringify(first));
      const calls = fake.requests.slice(before).filter((r) => r.path.includes(due.paymentId));
      assert.deepEqual(calls.map((r) => [r.operation, r.method, r.path]), [
        ["refunds.list", "GET", `/v1/payments/${due.paymentId}/refunds?count=100`],
        ["refunds.create", "POST", `/v1/payments/${due.paymentId}/refund`],
      ]);
      assert.deepEqual(calls[1].body, {
        amount: 71_545,
        speed: "normal",
        receipt: due.refundId,
        notes: { orderId: due.orderId },
      });
      const [made] = fakeRefunds(due.paymentId);
      assert.deepEqual(
        (await refundRows(db, due.orderId)).map((r) => [r.status, r.provider_refund_id, r.attempts]),
        [
          ["issued", made.id, 1],
        ],
      );
      await run();
      assert.equal(fakeRefunds(due.paymentId).length, 1);
      assert.equal(fake.requests.slice(before).filter((r) => r.path.includes(due.paymentId)).length, 2);
    } finally {
      await stack.close();
    }
  });

  test("issueDueRefunds() adopts a refund Razorpay holds under our receipt instead of creating another", async () => {
    const { stack, fake, run, cancelledPaidOrder, fakeRefunds } = await refundStack();
    try {
      const due = await cancelledPaidOrder();
      // an earlier run's create reached Razorpay, and its answer was lost before our commit
      fake.fail("refunds.create", "act-then-fail");
      const lost = await run();
      assert.ok(lost.failed >= 1);
      assert.equal(fakeRefunds(due.paymentId).length, 1);
      assert.equal((await refundRows(db, due.orderId))[0].status, "pending");

      const adopted = await run();
      assert.ok(adopted.adopted >= 1, JSON.stringify(adopted));
      const [made] = fakeRefunds(due.paymentId);
      assert.equal(fakeRefunds(due.paymentId).length, 1);
      assert.deepEqual(
        (await refundRows(db, due.orderId)).map((r) => [r.status, r.provider_refund_id, r.attempts]),
        [
          ["issued", made.id, 2],
        ],
      );
    } finally {
      await stack.close();
    }
  });

  test("issueDueRefunds() retries Razorpay's errors and silence on later runs, still one refund", async () => {
    const { stack, fake, run, cancelledPaidOrder, fakeRefunds } = await refundStack({ timeoutMs: 300 });
    try {
      const due = await cancelledPaidOrder();
      fake.fail("refunds.list", "error");
      await run();
      fake.fail("refunds.create", { status: 502, description: "Bad gateway" });
      await run();
      fake.fail("refunds.create", "hang");
      await run();
      const [row] = await refundRows(db, due.orderId);
      assert.deepEqual([row.status, row.attempts], ["pending", 3]);
      await run();
      assert.equal(fakeRefunds(due.paymentId).length, 1);
      assert.deepEqual((await refundRows(db, due.orderId)).map((r) => [r.status, r.attempts]), [[
        "issued",
        4,
      ]]);
    } finally {
      await stack.close();
    }
  });

  test("issueDueRefunds() marks a refund failed after 10 attempts and tries it no more", async () => {
    const { stack, fake, run, lines, cancelledPaidOrder, fakeRefunds } = await refundStack();
    try {
      const due = await cancelledPaidOrder();
      for (let attempt = 1; attempt <= 11; attempt++) {
        fake.fail("refunds.list", "error");
        await run();
      }
      const [row] = await refundRows(db, due.orderId);
      assert.deepEqual([row.status, row.attempts], ["failed", 10]);
      assert.equal(fakeRefunds(due.paymentId).length, 0);
      assert.ok(lines.some((l) => l.event === "refund.failed" && l.refundId === due.refundId));
    } finally {
      await stack.close();
    }
  });

  test("issueDueRefunds() ends within the run's budget when Razorpay hangs, and hands back what it did not try", async () => {
    const { stack, fake, run, cancelledPaidOrder } = await refundStack();
    try {
      const dues = [await cancelledPaidOrder(), await cancelledPaidOrder()];
      fake.fail("refunds.list", "hang", "hang");
      const started = Date.now();
      const report = await run(budget(400, 1_000));
      const elapsed = Date.now() - started;
      // the first call hangs to the run's end (budget + one request's time-out): the second is never tried
      assert.ok(elapsed < 400 + 1_000 + 500, `${elapsed} ms`);
      assert.ok(report.failed >= 1 && report.released >= 1, JSON.stringify(report));
      for (const due of dues) assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
    } finally {
      await stack.close();
    }
  });

  test("issueDueRefunds() stops trying for the run after three failures in a row, and hands the rest back untried", async () => {
    const { stack, fake, run, cancelledPaidOrder } = await refundStack();
    try {
      const dues = [];
      for (let i = 0; i < 4; i++) dues.push(await cancelledPaidOrder());
      fake.fail("refunds.list", "error", "error", "error");
      const before = fake.requests.length;
      const report = await run();
      assert.deepEqual([report.issued, report.failed, report.released], [0, 3, 1]);
      assert.equal(fake.requests.slice(before).filter((r) => r.operation.startsWith("refunds.")).length, 3);
      // Razorpay is back: the next run issues all four
      const next = await run();
      assert.equal(next.issued, 4);
      for (const due of dues) assert.equal((await refundRows(db, due.orderId))[0].status, "issued");
    } finally {
      await stack.close();
    }
  });

  test("issueDueRefunds() issues, in the same run, a refund claimed behind three that Razorpay refuses: a refusal is that refund's, not an outage", async () => {
    const { stack, fake, run, cancelledPaidOrder } = await refundStack();
    try {
      const refused = [];
      for (let i = 0; i < FAILURES_BEFORE_PAUSE; i++) {
        const due = await cancelledPaidOrder();
        // refunded by hand in Razorpay's Dashboard: every refund of ours is refused (400), run after run
        fake.ledger.createRefund(due.paymentId, { amount: 71_545 });
        refused.push(due);
      }
      const behind = await cancelledPaidOrder();
      const report = await run();
      assert.deepEqual(report, { issued: 1, adopted: 0, failed: FAILURES_BEFORE_PAUSE, released: 0 });
      assert.equal((await refundRows(db, behind.orderId))[0].status, "issued");
      for (const due of refused) {
        assert.deepEqual((await refundRows(db, due.orderId)).map((r) => [r.status, r.attempts]), [[
          "pending",
          1,
        ]]);
      }
    } finally {
      await stack.close();
    }
  });

  // pins a past bug: the claim tells what the run tried by the run's age against the database's clock, and a
  // claim that reached the database late (here: a run whose age reads 0) claimed the refund again: tried
  // twice in one run, its error's retry came at once
  test("issueDueRefunds() tries a refund at most once a run, even when the claim cannot tell the run tried it", async () => {
    const { stack, fake, run, cancelledPaidOrder } = await refundStack();
    try {
      const due = await cancelledPaidOrder();
      fake.fail("refunds.list", "error");
      const before = fake.requests.length;
      const report = await run({ ...budget(), elapsedMs: () => 0 });
      assert.deepEqual(report, { issued: 0, adopted: 0, failed: 1, released: 0 });
      assert.deepEqual(
        fake.requests.slice(before).filter((r) => r.path.includes(due.paymentId)).map((r) => r.operation),
        ["refunds.list"],
      );
      assert.deepEqual((await refundRows(db, due.orderId)).map((r) => [r.status, r.attempts]), [[
        "pending",
        1,
      ]]);
    } finally {
      await stack.close();
    }
  });
}
