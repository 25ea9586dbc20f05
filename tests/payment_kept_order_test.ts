/**
 * A payment is decided for the order whose kept Razorpay order it paid, whatever its notes say: start-payment
 * keeps one Razorpay order per order, while Checkout lets the buyer's browser write the payment's notes. So a
 * payment of order A's kept Razorpay order whose `notes.orderId` names order B pays A and changes nothing of B,
 * through payment-webhook (the fake's own event, or a signed one written by hand) and verify-payment alike,
 * and a replay answers the same. Notes name the order only for a payment through no kept Razorpay order, and
 * only an order that has none of its own (docs/develop.md, decisions).
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { CARD_ORDER_PAISE, placeOrder, postFunction, startPayment, verifyBody } from "./support/payments.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";

/** Everything a payment could change about an order: its status, history, ledger, refunds and e-mails. */
async function orderFootprint(db: SqlDatabase, orderId: string) {
  const [row] = await db.query<Record<string, unknown>>(
    `select o.status::text as status,
       (select count(*)::int from public.order_status_history h where h.order_id = o.id) as moves,
       (select count(*)::int from public.payments p where p.order_id = o.id) as payments,
       (select count(*)::int from public.refunds r where r.order_id = o.id) as refunds,
       (select string_agg(e.kind, ',' order by e.kind) from public.email_outbox e where e.order_id = o.id) as emails
     from public.orders o where o.id = $1`,
    [orderId],
  );
  return row;
}

/** The ledger's decision of one event: its outcome and the order it was recorded for. */
async function decision(db: SqlDatabase, eventId: string) {
  const rows = await db.query<{ outcome: string; order_id: string | null }>(
    "select outcome, order_id from public.payments where provider_event_id = $1",
    [eventId],
  );
  return rows.map((row) => [row.outcome, row.order_id]);
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST payment-webhook decides a payment of order A's kept Razorpay order for A whatever its notes.orderId names: order B is untouched, and a replay answers the same", async (t) => {
    // payment.captured alone, the event whose notes the browser wrote (order.paid also carries the Razorpay
    // order's own notes, written by start-payment)
    const stack = await startTestStack({ db, fakeRazorpay: { webhookEvents: ["payment.captured"] } });
    try {
      await t.step("paid on Checkout with notes naming B", async () => {
        const a = await placeOrder(db);
        const b = await placeOrder(db); // the same amount: 715.45 by card
        const { providerOrderId } = await startPayment(stack, a.orderId);
        const bBefore = await orderFootprint(db, b.orderId);
        await stack.razorpay!.pay(providerOrderId, { method: "card", notes: { orderId: b.orderId } });
        await stack.razorpay!.webhooks.settled();
        const [captured] = stack.razorpay!.webhooks.deliveries.filter((d) =>
          d.event === "payment.captured" && d.body.includes(providerOrderId)
        );
        assert.equal(captured.status, 200);
        assert.deepEqual(await decision(db, captured.eventId), [["paid", a.orderId]]);
        assert.equal((await orderFootprint(db, a.orderId)).status, "paid");
        assert.deepEqual(await orderFootprint(db, b.orderId), bBefore);

        const replay = await postRazorpayEvent(stack, captured.body, { eventId: captured.eventId });
        assert.deepEqual(await replay.json(), {
          received: true,
          outcome: "paid",
          orderId: a.orderId,
          orderStatus: "paid",
          refundDue: false,
          replayed: true,
        });
        assert.deepEqual(await decision(db, captured.eventId), [["paid", a.orderId]]);
        assert.deepEqual(await orderFootprint(db, b.orderId), bBefore);
      });

      await t.step(
        "a signed payment.captured written by hand: order_id A's kept order, notes B",
        async () => {
          const a = await placeOrder(db);
          const b = await placeOrder(db);
          const { providerOrderId } = await startPayment(stack, a.orderId);
          const bBefore = await orderFootprint(db, b.orderId);
          const event = paymentCapturedEvent({
            orderId: b.orderId,
            amount: CARD_ORDER_PAISE,
            providerOrderId,
          });
          const first = await postRazorpayEvent(stack, event, { eventId: "evt_KeptOrderWins01" });
          assert.deepEqual(await first.json(), {
            received: true,
            outcome: "paid",
            orderId: a.orderId,
            orderStatus: "paid",
            refundDue: false,
            replayed: false,
          });
          const again = await postRazorpayEvent(stack, event, { eventId: "evt_KeptOrderWins01" });
          assert.deepEqual((await again.json()).replayed, true);
          assert.deepEqual(await decision(db, "evt_KeptOrderWins01"), [["paid", a.orderId]]);
          assert.deepEqual(await orderFootprint(db, b.orderId), bBefore);
        },
      );
    } finally {
      await stack.close();
    }
  });

  test("POST verify-payment decides for the order whose kept Razorpay order was paid: the payment verified for order B is 409 PAYMENT_ORDER_MISMATCH and changes nothing of B", async () => {
    const stack = await startTestStack({ db });
    try {
      const a = await placeOrder(db);
      const b = await placeOrder(db);
      const { providerOrderId } = await startPayment(stack, a.orderId);
      const bBefore = await orderFootprint(db, b.orderId);
      stack.razorpay!.webhooks.held = true;
      const answer = await stack.razorpay!.pay(providerOrderId, {
        method: "card",
        notes: { orderId: b.orderId },
      });

      const forB = await postFunction(stack, "verify-payment", verifyBody(b.orderId, answer));
      assert.equal(forB.status, 409);
      assert.equal((await forB.json()).error.code, "PAYMENT_ORDER_MISMATCH");
      assert.deepEqual(await orderFootprint(db, b.orderId), bBefore);

      const forA = await postFunction(stack, "verify-payment", verifyBody(a.orderId, answer));
      assert.deepEqual(await forA.json(), {
        success: true,
        orderId: a.orderId,
        orderNumber: a.orderNumber,
        status: "paid",
        outcome: "paid",
      });
      // the webhook's events of the same payment, notes naming B: one decision, A's
      await stack.razorpay!.webhooks.release();
      assert.ok(stack.razorpay!.webhooks.deliveries.every((d) => d.status === 200));
      const rows = await db.query<{ outcome: string; order_id: string }>(
        "select outcome, order_id from public.payments where provider_payment_id = $1 order by outcome",
        ["error" in answer ? "" : answer.razorpay_payment_id],
      );
      assert.deepEqual(rows.map((r) => [r.outcome, r.order_id]), [
        ["already_paid", a.orderId],
        ["already_paid", a.orderId],
        ["paid", a.orderId],
      ]);
      assert.deepEqual(await orderFootprint(db, b.orderId), bBefore);
    } finally {
      await stack.close();
    }
  });

  test("POST payment-webhook takes the order from notes only for a payment through no kept Razorpay order, and only an order with none of its own", async (t) => {
    const stack = await startTestStack({ db });
    try {
      await t.step(
        "an order never started, paid through a Razorpay order we did not open: paid",
        async () => {
          const { orderId } = await placeOrder(db);
          const res = await postRazorpayEvent(
            stack,
            paymentCapturedEvent({ orderId, amount: CARD_ORDER_PAISE }),
          );
          assert.deepEqual([
            (await res.json()).outcome,
            await orderFootprint(db, orderId).then((o) => o.status),
          ], [
            "paid",
            "paid",
          ]);
        },
      );
      for (
        const [title, providerOrderId] of [
          ["through a Razorpay order we did not open", "order_NotKept0000001"],
          ["through no Razorpay order", null],
        ] as const
      ) {
        await t.step(`notes naming an order with a kept Razorpay order, ${title}: no order`, async () => {
          const { orderId } = await placeOrder(db);
          await startPayment(stack, orderId);
          const before = await orderFootprint(db, orderId);
          const res = await postRazorpayEvent(
            stack,
            paymentCapturedEvent({ orderId, amount: CARD_ORDER_PAISE, providerOrderId }),
          );
          assert.deepEqual(await res.json(), {
            received: true,
            outcome: "order_not_found",
            orderId: null,
            orderStatus: null,
            refundDue: false,
            replayed: false,
          });
          assert.deepEqual(await orderFootprint(db, orderId), before);
        });
      }
    } finally {
      await stack.close();
    }
  });

  test("confirm_payment() decides for the order kept for the payment's provider order, whatever p_order_id names", async () => {
    const a = await placeOrder(db);
    const b = await placeOrder(db);
    const providerOrderId = `order_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`;
    const bBefore = await orderFootprint(db, b.orderId);
    const [row] = await db.asRole("service_role", async (s) => {
      await s.query("select public.keep_provider_order($1, 'razorpay', $2, $3, 'INR')", [
        a.orderId,
        providerOrderId,
        CARD_ORDER_PAISE,
      ]);
      return await s.query<{ result: { outcome: string; orderId: string } }>(
        `select public.confirm_payment($1, $2, 'INR', 'razorpay', $3, $4, p_provider_order_id => $5) as result`,
        [
          b.orderId,
          CARD_ORDER_PAISE,
          `pay_${providerOrderId.slice(6)}`,
          `evt_${providerOrderId}`,
          providerOrderId,
        ],
      );
    });
    assert.deepEqual([row.result.outcome, row.result.orderId], ["paid", a.orderId]);
    assert.deepEqual(await orderFootprint(db, b.orderId), bBefore);
  });
}
