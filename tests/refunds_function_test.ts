/**
 * Money due back, in SQL: the method actually used and its fee shortfall in the ledger; one refund row per
 * payment whose money is due back, written by the transaction that made it due (confirm_payment's outcomes,
 * and a cancellation of a paid order by anyone); `manual` refunds of upi_direct orders; the order found by its
 * provider order when the payment's notes name none; and a refunds table no API role writes.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { CARD_ORDER_PAISE, placeOrder, UPI_DIRECT_PAISE } from "./support/payments.ts";
import { refundRows } from "./support/refunds.ts";

/** Two Assam Tea by UPI through the gateway: 698.00 + 2 % = 711.96. */
const UPI_ORDER_PAISE = 71_196;

interface Confirmed {
  outcome: string;
  refundDue: boolean;
  method: string | null;
  feeShortfall: number | null;
  refund: { refundId: string; amount: number; currency: string; status: string } | null;
  replayed: boolean;
  orderId: string | null;
}

/** confirm_payment as payment-webhook and verify-payment call it. */
async function confirm(
  db: SqlDatabase,
  orderId: string | null,
  options: {
    amount: number;
    currency?: string;
    paymentId?: string;
    eventId?: string;
    method?: string | null;
    providerOrderId?: string | null;
  },
): Promise<Confirmed> {
  const [row] = await db.asRole("service_role", (s) =>
    s.query<{ result: Confirmed }>(
      `select public.confirm_payment($1, $2, $3, 'razorpay', $4, $5, p_method => $6,
         p_provider_order_id => $7) as result`,
      [
        orderId ?? "",
        options.amount,
        options.currency ?? "INR",
        options.paymentId ?? `pay_${crypto.randomUUID()}`,
        options.eventId ?? `evt_${crypto.randomUUID()}`,
        options.method === undefined ? "card" : options.method,
        options.providerOrderId ?? null,
      ],
    ));
  return row.result;
}

/** update_order_status as update-order-status calls it. */
async function move(db: SqlDatabase, orderId: string, status: string, note: string | null = null) {
  const [row] = await db.asRole("service_role", (s) =>
    s.query<{ result: Record<string, unknown> }>(
      "select public.update_order_status($1, $2, p_note => $3) as result",
      [status, orderId, note ?? (status === "cancelled" ? "Out of stock" : null)],
    ));
  return row.result;
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("confirm_payment() records the method actually used and the fee it costs above the order's in paise, and still pays the order", async (t) => {
    const cases: [string, "card" | "upi", string | null, number, string | null, number | null][] = [
      // order priced as, method used, amount, method recorded, shortfall (paise)
      [
        "card used on a upi order: 2.5 % of 698.00 is 3.49 more than 2 %",
        "upi",
        "card",
        UPI_ORDER_PAISE,
        "card",
        349,
      ],
      ["netbanking takes the card rate", "upi", "netbanking", UPI_ORDER_PAISE, "netbanking", 349],
      ["emi takes the card rate", "upi", "emi", UPI_ORDER_PAISE, "emi", 349],
      ["wallet is its own sub-method, priced as upi", "upi", "wallet", UPI_ORDER_PAISE, "wallet", 0],
      ["upi used on a card order costs less: no shortfall", "card", "upi", CARD_ORDER_PAISE, "upi", 0],
      ["the method as the gateway cased it", "upi", "CARD", UPI_ORDER_PAISE, "card", 349],
      ["a method the ledger cannot read is unknown", "upi", "card; drop table", UPI_ORDER_PAISE, null, null],
      ["no method reported", "upi", null, UPI_ORDER_PAISE, null, null],
    ];
    for (const [title, priced, used, amount, method, shortfall] of cases) {
      await t.step(title, async () => {
        const { orderId } = await placeOrder(db, priced);
        const result = await confirm(db, orderId, { amount, method: used });
        assert.deepEqual(
          [result.outcome, result.method, result.feeShortfall, result.refund],
          ["paid", method, shortfall, null],
        );
        const [row] = await db.query<{ method: string | null; fee_shortfall: string | null; status: string }>(
          `select p.method, p.fee_shortfall::text, o.status::text from public.payments p
           join public.orders o on o.id = p.order_id where p.order_id = $1`,
          [orderId],
        );
        assert.deepEqual(row, {
          method,
          fee_shortfall: shortfall === null ? null : String(shortfall),
          status: "paid",
        });
      });
    }
  });

  test("confirm_payment() writes one pending refund of the payment's amount and currency for every payment whose money is due back", async (t) => {
    const cases: [string, () => Promise<{ orderId: string; amount: number; currency?: string }>, string][] = [
      ["a payment of an order already cancelled", async () => {
        const { orderId } = await placeOrder(db);
        await move(db, orderId, "cancelled");
        return { orderId, amount: CARD_ORDER_PAISE };
      }, "order_cancelled"],
      ["a payment of a upi_direct order", async () => {
        const { orderId } = await placeOrder(db, "upi_direct");
        return { orderId, amount: UPI_DIRECT_PAISE };
      }, "method_mismatch"],
      ["a second payment of a paid order", async () => {
        const { orderId } = await placeOrder(db);
        await confirm(db, orderId, { amount: CARD_ORDER_PAISE });
        return { orderId, amount: CARD_ORDER_PAISE };
      }, "duplicate_payment"],
      ["a payment of the wrong amount", async () => {
        const { orderId } = await placeOrder(db);
        return { orderId, amount: 100 };
      }, "amount_mismatch"],
      ["a payment in the wrong currency", async () => {
        const { orderId } = await placeOrder(db);
        return { orderId, amount: CARD_ORDER_PAISE, currency: "USD" };
      }, "currency_mismatch"],
    ];
    for (const [title, arrange, outcome] of cases) {
      await t.step(title, async () => {
        const { orderId, amount, currency = "INR" } = await arrange();
        const paymentId = `pay_due_${crypto.randomUUID()}`;
        const first = await confirm(db, orderId, {
          amount,
          currency,
          paymentId,
          eventId: `evt_a_${paymentId}`,
        });
        assert.deepEqual([
          first.outcome,
          first.refundDue,
          first.refund?.amount,
          first.refund?.currency,
          first.refund?.status,
        ], [
          outcome,
          true,
          amount / 100,
          currency,
          "pending",
        ]);
        // the payment's second event (order.paid after payment.captured) writes none; a replay answers the first's
        const second = await confirm(db, orderId, {
          amount,
          currency,
          paymentId,
          eventId: `evt_b_${paymentId}`,
        });
        assert.deepEqual([second.outcome, second.refund], ["already_recorded", null]);
        const replay = await confirm(db, orderId, {
          amount,
          currency,
          paymentId,
          eventId: `evt_a_${paymentId}`,
        });
        assert.deepEqual([replay.replayed, replay.refund], [true, first.refund]);
        const refunds = await refundRows(db, orderId);
        assert.deepEqual(
          refunds.filter((r) => r.provider_payment_id === paymentId).map((
            r,
          ) => [r.amount, r.currency, r.status]),
          [[(amount / 100).toFixed(2), currency, "pending"]],
        );
      });
    }
  });

  test("confirm_payment() writes no refund for money that paid its order, nor for a payment of no known order", async () => {
    const { orderId } = await placeOrder(db);
    assert.equal((await confirm(db, orderId, { amount: CARD_ORDER_PAISE })).refund, null);
    assert.deepEqual(await refundRows(db, orderId), []);
    const unknown = await confirm(db, crypto.randomUUID(), { amount: CARD_ORDER_PAISE });
    assert.deepEqual([unknown.outcome, unknown.refund], ["order_not_found", null]);
  });

  test("update_order_status() writes the refund of the payment that paid an order it cancels, and answers it", async () => {
    const { orderId } = await placeOrder(db);
    const paid = await confirm(db, orderId, { amount: CARD_ORDER_PAISE });
    assert.equal(paid.outcome, "paid");
    const cancelled = await move(db, orderId, "cancelled");
    assert.deepEqual(
      [
        cancelled.status,
        (cancelled.refund as Confirmed["refund"])?.amount,
        (cancelled.refund as Confirmed["refund"])?.status,
      ],
      ["cancelled", 715.45, "pending"],
    );
    assert.deepEqual((await refundRows(db, orderId)).map((r) => [r.outcome, r.amount, r.status]), [
      ["paid", "715.45", "pending"],
    ]);
    // the refund is the cancelled e-mail's news too
    const [email] = await db.query<{ payload: { refunds: unknown } }>(
      "select payload from public.email_outbox where order_id = $1 and kind = 'status_cancelled'",
      [orderId],
    );
    assert.deepEqual(email.payload.refunds, [{ amountMinor: 71_545, currency: "INR", status: "pending" }]);
  });

  test("update_order_status() writes the refund of a paid and processing order it cancels, none for an unpaid order", async (t) => {
    await t.step("processing", async () => {
      const { orderId } = await placeOrder(db);
      await confirm(db, orderId, { amount: CARD_ORDER_PAISE });
      await move(db, orderId, "processing");
      const cancelled = await move(db, orderId, "cancelled");
      assert.equal((cancelled.refund as Confirmed["refund"])?.status, "pending");
    });
    await t.step("unpaid", async () => {
      const { orderId } = await placeOrder(db);
      const cancelled = await move(db, orderId, "cancelled");
      assert.equal("refund" in cancelled, false);
      assert.deepEqual(await refundRows(db, orderId), []);
    });
    await t.step("a gateway order the seller marked paid, no gateway payment recorded", async () => {
      const { orderId } = await placeOrder(db);
      await move(db, orderId, "paid");
      const cancelled = await move(db, orderId, "cancelled");
      assert.equal("refund" in cancelled, false);
      // its payment, reported later, goes back then: once
      const late = await confirm(db, orderId, { amount: CARD_ORDER_PAISE });
      assert.deepEqual([late.outcome, late.refund?.status], ["order_cancelled", "pending"]);
      assert.equal((await refundRows(db, orderId)).length, 1);
    });
  });

  test("update_order_status() writes a manual refund of a upi_direct order the seller had confirmed paid and cancels", async () => {
    const { orderId } = await placeOrder(db, "upi_direct");
    await move(db, orderId, "paid");
    const cancelled = await move(db, orderId, "cancelled");
    assert.deepEqual(cancelled.refund, {
      refundId: (cancelled.refund as { refundId: string }).refundId,
      amount: 698,
      currency: "INR",
      status: "manual",
    });
    const rows = await db.query<{ payment_id: string | null; amount: string; status: string }>(
      "select payment_id, amount::text, status from public.refunds where order_id = $1",
      [orderId],
    );
    assert.deepEqual(rows, [{ payment_id: null, amount: "698.00", status: "manual" }]);
  });

  test("confirm_payment() finds the order through the provider order start-payment kept when the payment's notes name none", async (t) => {
    const { orderId } = await placeOrder(db);
    const providerOrderId = `order_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`;
    await db.asRole(
      "service_role",
      (s) =>
        s.query("select public.keep_provider_order($1, 'razorpay', $2, $3, 'INR')", [
          orderId,
          providerOrderId,
          CARD_ORDER_PAISE,
        ]),
    );
    const notes: [string, string | null][] = [
      ["no orderId in the notes", null],
      ["an orderId of no order", crypto.randomUUID()],
    ];
    for (const [title, notesOrderId] of notes) {
      await t.step(title, async () => {
        const result = await confirm(db, notesOrderId, {
          amount: CARD_ORDER_PAISE,
          providerOrderId,
          paymentId: "pay_by_provider_order",
        });
        assert.deepEqual([result.orderId, result.outcome].map(String), [
          orderId,
          notesOrderId === null ? "paid" : "already_paid",
        ]);
      });
    }
    await t.step("a provider order we never kept finds nothing", async () => {
      const result = await confirm(db, null, {
        amount: CARD_ORDER_PAISE,
        providerOrderId: "order_NotOurs00001",
      });
      assert.deepEqual([result.outcome, result.orderId], ["order_not_found", null]);
    });
  });

  test("refunds keep their payment, order, amount and currency even for their owner, and no API role writes one", async () => {
    const { orderId } = await placeOrder(db);
    await confirm(db, orderId, { amount: 100 });
    const attempt = async (role: string, sql: string) => {
      try {
        await db.asRole(role, (s) => s.query(sql, [orderId]));
        return "ok";
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    assert.equal(
      await attempt("postgres", "update public.refunds set amount = 1000 where order_id = $1"),
      "OCM00",
    );
    for (const role of ["service_role", "anon", "authenticated"]) {
      assert.equal(
        await attempt(role, "update public.refunds set status = 'processed' where order_id = $1"),
        "42501",
      );
      assert.equal(
        await attempt(
          role,
          "insert into public.refunds (order_id, amount, currency, status) values ($1, 10, 'INR', 'manual')",
        ),
        "42501",
      );
    }
    assert.equal(await attempt("anon", "select * from public.refunds where order_id = $1"), "42501");
    assert.equal(await attempt("service_role", "select * from public.refunds where order_id = $1"), "ok");
  });

  test("refunds hold one refund per payment, even for their owner", async () => {
    const store = await createTestStore(db);
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    await confirm(db, response.orderId, { amount: 100 });
    const code = await db.query(
      `insert into public.refunds (payment_id, order_id, amount, currency)
       select payment_id, order_id, amount, currency from public.refunds where order_id = $1`,
      [response.orderId],
    ).then(() => "ok", (error: { code?: string }) => error.code);
    assert.equal(code, "23505");
  });
}
