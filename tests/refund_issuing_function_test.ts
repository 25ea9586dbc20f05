/**
 * The refunds' own functions in SQL, as the drain's run and payment-webhook call them: a claim that holds a
 * refund for one claimer until it lapses, results recorded only under their claim (issued, adopted as the
 * gateway reports it, an error counted, `failed` at the tenth), handed back untried, and the gateway's
 * refund events settling the refund they name, and only it.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { testDatabases } from "./support/databases.ts";
import { placeOrder } from "./support/payments.ts";
import { refundRows } from "./support/refunds.ts";

interface Claimed {
  refundId: string;
  orderId: string;
  provider: string;
  providerPaymentId: string;
  amountMinor: number;
  currency: string;
  attempts: number;
  claimToken: string;
}

/** A refund due: a ₹1 payment of a new order (amount_mismatch). */
async function refundDue(db: SqlDatabase): Promise<{ orderId: string; paymentId: string; refundId: string }> {
  const { orderId } = await placeOrder(db);
  const paymentId = `pay_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`;
  const [{ refundId }] = await db.asRole("service_role", (s) =>
    s.query<{ refundId: string }>(
      "select public.confirm_payment($1, 100, 'INR', 'razorpay', $2, $3) #>> '{refund,refundId}' as \"refundId\"",
      [orderId, paymentId, `evt_${paymentId}`],
    ));
  return { orderId, paymentId, refundId };
}

async function claim(db: SqlDatabase, options: { minAge?: number; claimMs?: number; runMs?: number } = {}) {
  const [{ claimed }] = await db.asRole(
    "service_role",
    (s) =>
      s.query<{ claimed: Claimed[] }>("select public.claim_due_refunds(100, $1, $2, $3) as claimed", [
        options.minAge ?? 0,
        options.claimMs ?? 60_000,
        options.runMs ?? 0,
      ]),
  );
  return claimed;
}

async function record(
  db: SqlDatabase,
  refundId: string,
  claimToken: string,
  result: { providerRefundId?: string; providerStatus?: string; error?: string; release?: boolean },
) {
  const [{ recorded }] = await db.asRole(
    "service_role",
    (s) =>
      s.query<{ recorded: { recorded: boolean; status?: string; attempts?: number } }>(
        `select public.record_refund_result($1, $2, p_provider_refund_id => $3, p_provider_status => $4,
         p_error => $5, p_release => $6) as recorded`,
        [
          refundId,
          claimToken,
          result.providerRefundId ?? null,
          result.providerStatus ?? null,
          result.error ?? null,
          result.release ?? false,
        ],
      ),
  );
  return recorded;
}

/** record_refund_event as payment-webhook calls it; each event under a new id unless `eventId` is given. */
async function refundEvent(
  db: SqlDatabase,
  event: {
    paymentId: string;
    providerRefundId: string;
    receipt: string | null;
    status: string;
    eventId?: string;
  },
) {
  const [{ result }] = await db.asRole(
    "service_role",
    (s) =>
      s.query<{ result: { found: boolean; changed: boolean; replayed: boolean; status?: string } }>(
        "select public.record_refund_event('razorpay', $1, $2, $3, $4, $5) as result",
        [
          event.eventId ?? `evt_${crypto.randomUUID()}`,
          event.paymentId,
          event.providerRefundId,
          event.receipt,
          event.status,
        ],
      ),
  );
  return result;
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("claim_due_refunds() hands a pending refund to one claimer until its claim lapses", async () => {
    const due = await refundDue(db);
    const first = (await claim(db, { claimMs: 1_000 })).filter((c) => c.refundId === due.refundId);
    assert.deepEqual(first.map(({ claimToken: _, ...c }) => c), [{
      refundId: due.refundId,
      orderId: due.orderId,
      provider: "razorpay",
      providerPaymentId: due.paymentId,
      amountMinor: 100,
      currency: "INR",
      attempts: 0,
    }]);
    assert.deepEqual((await claim(db)).filter((c) => c.refundId === due.refundId), []);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = (await claim(db)).filter((c) => c.refundId === due.refundId);
    assert.equal(again.length, 1);
    assert.notEqual(again[0].claimToken, first[0].claimToken);
    // the lapsed claim's result is not recorded: its claimer's work is the new claimer's to adopt
    assert.deepEqual(
      await record(db, due.refundId, first[0].claimToken, { providerRefundId: "rfnd_Late0000000001" }),
      {
        recorded: false,
        refundId: due.refundId,
      },
    );
    assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
  });

  test("record_refund_result() records the gateway's refund as issued, or as the gateway reports an adopted one", async (t) => {
    for (
      const [providerStatus, status] of [[undefined, "issued"], ["pending", "issued"], [
        "processed",
        "processed",
      ]]
    ) {
      await t.step(`${providerStatus ?? "no status"} -> ${status}`, async () => {
        const due = await refundDue(db);
        const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
        const providerRefundId = `rfnd_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`;
        const recorded = await record(db, due.refundId, claimed.claimToken, {
          providerRefundId,
          providerStatus,
        });
        assert.deepEqual([recorded.recorded, recorded.status, recorded.attempts], [true, status, 1]);
        const [row] = await refundRows(db, due.orderId);
        assert.deepEqual([row.status, row.provider_refund_id], [status, providerRefundId]);
        // issued: never claimed again
        assert.deepEqual((await claim(db)).filter((c) => c.refundId === due.refundId), []);
      });
    }
  });

  test("record_refund_result() counts each error, retries the refund on a later claim, and fails it at the tenth attempt", async () => {
    const due = await refundDue(db);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
      assert.equal(claimed?.attempts, attempt - 1, `attempt ${attempt}`);
      const recorded = await record(db, due.refundId, claimed.claimToken, {
        error: "razorpay answered 500\nSERVER_ERROR",
      });
      assert.deepEqual([recorded.status, recorded.attempts], [attempt < 10 ? "pending" : "failed", attempt]);
    }
    assert.deepEqual((await claim(db)).filter((c) => c.refundId === due.refundId), []);
    const [{ last_error }] = await db.query<{ last_error: string }>(
      "select last_error from public.refunds where id = $1",
      [due.refundId],
    );
    assert.equal(last_error, "razorpay answered 500 SERVER_ERROR");
    const [{ failed }] = await db.asRole(
      "service_role",
      (s) =>
        s.query<{ failed: { total: number; refunds: { refundId: string; orderId: string }[] } }>(
          "select public.failed_refunds(100) as failed",
        ),
    );
    assert.ok(failed.refunds.some((r) => r.refundId === due.refundId && r.orderId === due.orderId));
  });

  test("claim_due_refunds() waits out a failed attempt's back-off and never claims a refund its run tried", async () => {
    const due = await refundDue(db);
    const [first] = (await claim(db)).filter((c) => c.refundId === due.refundId);
    await record(db, due.refundId, first.claimToken, { error: "timed out" });
    // a minute's back-off after the first failure
    assert.deepEqual((await claim(db, { minAge: 60 })).filter((c) => c.refundId === due.refundId), []);
    // a run that started before that attempt has tried it already
    assert.deepEqual((await claim(db, { runMs: 60_000 })).filter((c) => c.refundId === due.refundId), []);
    assert.equal((await claim(db)).filter((c) => c.refundId === due.refundId).length, 1);
  });

  test("record_refund_result() hands a claim back untried: nothing counted, due again", async () => {
    const due = await refundDue(db);
    const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
    assert.equal((await record(db, due.refundId, claimed.claimToken, { release: true })).attempts, 0);
    assert.equal((await claim(db, { minAge: 3600 })).filter((c) => c.refundId === due.refundId).length, 1);
  });

  test("record_refund_event() settles the refund the gateway names by our receipt or its id, only among the payment's refunds", async (t) => {
    await t.step("refund.processed of an issued refund, by its id, then replayed", async () => {
      const due = await refundDue(db);
      const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
      await record(db, due.refundId, claimed.claimToken, { providerRefundId: `rfnd_A${due.paymentId}` });
      const event = {
        paymentId: due.paymentId,
        providerRefundId: `rfnd_A${due.paymentId}`,
        receipt: null,
        status: "processed",
      };
      assert.deepEqual(await refundEvent(db, event), {
        found: true,
        changed: true,
        replayed: false,
        refundId: due.refundId,
        orderId: due.orderId,
        status: "processed",
      });
      assert.equal((await refundEvent(db, event)).changed, false);
      // a late refund.failed does not undo a processed refund
      assert.equal((await refundEvent(db, { ...event, status: "failed" })).status, "processed");
    });
    await t.step(
      "refund.processed before the drain recorded its answer: by the receipt, the claim's result then refused",
      async () => {
        const due = await refundDue(db);
        const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
        const event = {
          paymentId: due.paymentId,
          providerRefundId: `rfnd_B${due.paymentId}`,
          receipt: due.refundId,
          status: "processed",
        };
        assert.equal((await refundEvent(db, event)).status, "processed");
        assert.equal(
          (await record(db, due.refundId, claimed.claimToken, { providerRefundId: event.providerRefundId }))
            .recorded,
          false,
        );
        const [row] = await refundRows(db, due.orderId);
        assert.deepEqual([row.status, row.provider_refund_id], ["processed", event.providerRefundId]);
      },
    );
    await t.step("refund.failed of an issued refund", async () => {
      const due = await refundDue(db);
      const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
      await record(db, due.refundId, claimed.claimToken, { providerRefundId: `rfnd_C${due.paymentId}` });
      const event = {
        paymentId: due.paymentId,
        providerRefundId: `rfnd_C${due.paymentId}`,
        receipt: due.refundId,
        status: "failed",
      };
      assert.equal((await refundEvent(db, event)).status, "failed");
    });
    await t.step(
      "our receipt on another payment's refund, and a refund made by hand, find nothing",
      async () => {
        const due = await refundDue(db);
        const other = await refundDue(db);
        assert.deepEqual(
          await refundEvent(db, {
            paymentId: other.paymentId,
            providerRefundId: "rfnd_Forged00000001",
            receipt: due.refundId,
            status: "processed",
          }),
          { found: false, changed: false, replayed: false },
        );
        assert.deepEqual(
          await refundEvent(db, {
            paymentId: due.paymentId,
            providerRefundId: "rfnd_ByHand00000001",
            receipt: null,
            status: "processed",
          }),
          { found: false, changed: false, replayed: false },
        );
        assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
      },
    );
  });

  test("record_refund_event() decides an event once: sent again under its id it answers replayed and changes nothing, even after a person set the refund pending again", async () => {
    const due = await refundDue(db);
    const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
    await record(db, due.refundId, claimed.claimToken, { providerRefundId: `rfnd_D${due.paymentId}` });
    const event = {
      eventId: `evt_failed_${due.refundId}`,
      paymentId: due.paymentId,
      providerRefundId: `rfnd_D${due.paymentId}`,
      receipt: due.refundId,
      status: "failed",
    };
    assert.deepEqual(
      [(await refundEvent(db, event)).status, (await refundRows(db, due.orderId))[0].status],
      ["failed", "failed"],
    );
    // docs/operate.md, "Refunds": a person has the drain try again
    await db.query("update public.refunds set status = 'pending', attempts = 0 where id = $1", [
      due.refundId,
    ]);
    assert.deepEqual(await refundEvent(db, event), {
      found: true,
      changed: false,
      replayed: true,
      refundId: due.refundId,
      orderId: due.orderId,
      status: "pending",
    });
    assert.equal((await refundRows(db, due.orderId))[0].status, "pending");
    const kept = await db.query<{ status: string; changed: boolean }>(
      "select status, changed from public.refund_events where provider = 'razorpay' and provider_event_id = $1",
      [event.eventId],
    );
    assert.deepEqual(kept, [{ status: "failed", changed: true }]);
  });

  test("record_refund_event() keeps a processed refund processed when refund.failed arrives after it, and ends a failed one on a later refund.processed", async () => {
    const due = await refundDue(db);
    const [claimed] = (await claim(db)).filter((c) => c.refundId === due.refundId);
    const providerRefundId = `rfnd_E${due.paymentId}`;
    await record(db, due.refundId, claimed.claimToken, { providerRefundId });
    const event = { paymentId: due.paymentId, providerRefundId, receipt: due.refundId };
    const processed = await refundEvent(db, { ...event, status: "processed" });
    const lateFailed = await refundEvent(db, { ...event, status: "failed" });
    assert.deepEqual(
      [processed.changed, processed.status, lateFailed.changed, lateFailed.replayed, lateFailed.status],
      [true, "processed", false, false, "processed"],
    );
    const other = await refundDue(db);
    const [otherClaim] = (await claim(db)).filter((c) => c.refundId === other.refundId);
    await record(db, other.refundId, otherClaim.claimToken, { providerRefundId: `rfnd_F${other.paymentId}` });
    const otherEvent = {
      paymentId: other.paymentId,
      providerRefundId: `rfnd_F${other.paymentId}`,
      receipt: null,
    };
    assert.equal((await refundEvent(db, { ...otherEvent, status: "failed" })).status, "failed");
    assert.equal((await refundEvent(db, { ...otherEvent, status: "processed" })).status, "processed");
  });

  test("claim_due_refunds() claims the refunds never tried before one that failed, however much older that one is", async () => {
    const failing = await refundDue(db);
    const [claimed] = (await claim(db)).filter((c) => c.refundId === failing.refundId);
    await record(db, failing.refundId, claimed.claimToken, {
      error: "BAD_REQUEST_ERROR: fully refunded already",
    });
    const fresh = await refundDue(db);
    const order = (await claim(db)).map((c) => c.refundId).filter((id) =>
      id === failing.refundId || id === fresh.refundId
    );
    assert.deepEqual(order, [fresh.refundId, failing.refundId]);
  });

  test("the refunds' functions refuse what a direct caller gets wrong, writing nothing", async (t) => {
    const due = await refundDue(db);
    const calls: [string, string, unknown[], string][] = [
      ["a claim of 0 refunds", "select public.claim_due_refunds(0, 0, 1000)", [], "22023"],
      [
        "a result that is both an id and an error",
        "select public.record_refund_result($1, $1, 'rfnd_1', null, 'x')",
        [due.refundId],
        "22023",
      ],
      ["a result of no kind", "select public.record_refund_result($1, $1)", [due.refundId], "22023"],
      [
        "an event of another status",
        "select public.record_refund_event('razorpay', 'evt_1', 'pay_1', 'rfnd_1', null, 'pending')",
        [],
        "OCN00",
      ],
      [
        "an event with a line break in the refund id",
        "select public.record_refund_event('razorpay', 'evt_1', 'pay_1', e'rfnd\\n1', null, 'processed')",
        [],
        "OCN00",
      ],
      [
        "an event without its id",
        "select public.record_refund_event('razorpay', null, 'pay_1', 'rfnd_1', null, 'processed')",
        [],
        "OCN00",
      ],
    ];
    for (const [title, sql, params, code] of calls) {
      await t.step(title, async () => {
        const failed = await db.asRole("service_role", (s) => s.query(sql, params)).then(
          () => "ok",
          (error: { code?: string }) => error.code,
        );
        assert.equal(failed, code);
      });
    }
    for (const role of ["anon", "authenticated"]) {
      const failed = await db.asRole(role, (s) => s.query("select public.claim_due_refunds(1, 0, 1000)"))
        .then(
          () => "ok",
          (error: { code?: string }) => error.code,
        );
      assert.equal(failed, "42501");
    }
  });
}
