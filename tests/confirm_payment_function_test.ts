/**
 * confirm_payment and the payments ledger in SQL, called as the service role would through /rest/v1/rpc:
 * one decision per event, one paid payment per order under concurrency, and a ledger no API role rewrites.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { raceBehindRowLock } from "./support/row_lock_race.ts";
import { historyRows, orderStatus, statusEmailRows } from "./support/status_moves.ts";

/** 2 x 349.00 by card: 715.45. */
const FINAL_PAISE = 71_545;

/** 2 x 349.00 by UPI direct transfer: 698.00. */
const UPI_DIRECT_PAISE = 69_800;

async function newOrderId(db: SqlDatabase, method: "gateway" | "upi_direct" = "gateway"): Promise<string> {
  const store = await createTestStore(db);
  const payload = method === "gateway" ? createOrderPayload(store) : createOrderPayload(store, {
    paymentMethod: "upi_direct",
    gatewayMethod: null,
    paymentProofUrl: "https://proof.example/upi/1.png",
    feeMinor: 0,
    finalMinor: UPI_DIRECT_PAISE,
  });
  const { response } = await callCreateOrder(db, payload);
  return response.orderId;
}

interface Confirmed {
  replayed: boolean;
  outcome: string;
  orderId: string | null;
  orderStatus: string | null;
  refundDue: boolean;
  emails: { kind: string }[];
}

/** confirm_payment as the payment-webhook function calls it. */
async function confirm(
  db: SqlDatabase,
  orderId: string,
  options: { amount?: number; currency?: string; paymentId?: string; eventId?: string } = {},
): Promise<Confirmed> {
  const [row] = await db.asRole("service_role", (s) =>
    s.query<{ result: Confirmed }>(
      "select public.confirm_payment($1, $2, $3, 'razorpay', $4, $5) as result",
      [
        orderId,
        options.amount ?? FINAL_PAISE,
        options.currency ?? "INR",
        // a provider's payment id belongs to one payment of one order
        options.paymentId ?? `pay_${orderId}`,
        options.eventId ?? `evt_${crypto.randomUUID()}`,
      ],
    ));
  return row.result;
}

async function sqlstate(
  db: SqlDatabase,
  sql: string,
  params: unknown[] = [],
  role = "service_role",
): Promise<string | null> {
  try {
    await db.asRole(role, (s) => s.query(sql, params));
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? "?";
  }
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("confirm_payment() decides an event once: a replay answers the first outcome and writes nothing", async () => {
    const orderId = await newOrderId(db);
    const first = await confirm(db, orderId, { eventId: "evt_once", amount: 1 });
    assert.deepEqual([first.outcome, first.replayed], ["amount_mismatch", false]);
    // the same event again, even with the right amount now (a forger's replay): the first answer stands
    const replay = await confirm(db, orderId, { eventId: "evt_once" });
    assert.deepEqual([replay.outcome, replay.replayed, replay.emails], ["amount_mismatch", true, []]);
    const [{ count }] = await db.query<{ count: number }>(
      "select count(*)::int as count from public.payments where provider = 'razorpay' and provider_event_id = 'evt_once'",
    );
    assert.equal(count, 1);
    assert.equal(await orderStatus(db, orderId), "payment_pending");
  });

  test("confirm_payment() marks a payment_pending order paid as the payment gateway and claims the paid e-mails of the buyer and the seller", async () => {
    const orderId = await newOrderId(db);
    const paid = await confirm(db, orderId, { currency: "inr" });
    assert.deepEqual([paid.outcome, paid.refundDue, paid.emails.map((e) => e.kind)], ["paid", false, [
      "status_paid",
      "seller_paid",
    ]]);
    assert.deepEqual((await historyRows(db, orderId)).at(-1)?.actor, "payment_gateway");
    assert.deepEqual(await statusEmailRows(db, orderId), [
      { kind: "status_paid", to_email: "asha@example.com", status: "sending" },
    ]);
  });

  test("confirm_payment() marks no order paid whose payment method is not gateway: method_mismatch, refund due", async () => {
    const orderId = await newOrderId(db, "upi_direct");
    const result = await confirm(db, orderId, { amount: UPI_DIRECT_PAISE, paymentId: "pay_upi_order" });
    assert.deepEqual(
      [result.outcome, result.refundDue, result.orderStatus, result.emails],
      ["method_mismatch", true, "payment_pending", []],
    );
    assert.equal(await orderStatus(db, orderId), "payment_pending");
    assert.deepEqual((await historyRows(db, orderId)).map((h) => h.move), ["->payment_pending"]);
    assert.deepEqual(await statusEmailRows(db, orderId), []);
    // the seller's own confirmation of the transfer still works, and a later gateway payment pays nothing
    await db.asRole(
      "service_role",
      (s) =>
        s.query("select public.update_order_status('paid', $1, p_note => 'UPI transfer checked')", [orderId]),
    );
    const after = await confirm(db, orderId, { amount: UPI_DIRECT_PAISE, paymentId: "pay_upi_order_2" });
    assert.deepEqual([after.outcome, after.refundDue], ["method_mismatch", true]);
    const [row] = await db.query<{ outcome: string; order_status: string }>(
      "select outcome, order_status::text from public.payments where provider_payment_id = 'pay_upi_order'",
    );
    assert.deepEqual(row, { outcome: "method_mismatch", order_status: "payment_pending" });
  });

  test("confirm_payment() flags one refund per provider payment id, whatever events report it", async (t) => {
    const refundRows = async (paymentId: string) =>
      await db.query<{ outcome: string; refund_due: boolean }>(
        `select outcome, refund_due from public.payments where provider_payment_id = $1
         order by received_at, provider_event_id`,
        [paymentId],
      );
    await t.step("payment.captured and order.paid of one payment for a cancelled order", async () => {
      const orderId = await newOrderId(db);
      await db.asRole(
        "service_role",
        (s) =>
          s.query("select public.update_order_status('cancelled', $1, p_note => 'Out of stock')", [orderId]),
      );
      const paymentId = `pay_cancelled_${orderId}`;
      const results = [
        await confirm(db, orderId, { paymentId, eventId: `evt_a_${orderId}` }),
        await confirm(db, orderId, { paymentId, eventId: `evt_b_${orderId}` }),
      ];
      assert.deepEqual(results.map((r) => [r.outcome, r.refundDue]), [
        ["order_cancelled", true],
        ["already_recorded", false],
      ]);
      assert.deepEqual(await refundRows(paymentId), [
        { outcome: "order_cancelled", refund_due: true },
        { outcome: "already_recorded", refund_due: false },
      ]);
      // a replay of either event answers as it first did
      const replay = await confirm(db, orderId, { paymentId, eventId: `evt_b_${orderId}` });
      assert.deepEqual([replay.outcome, replay.refundDue, replay.replayed], [
        "already_recorded",
        false,
        true,
      ]);
    });
    await t.step("two events of a second payment of a paid order", async () => {
      const orderId = await newOrderId(db);
      assert.equal((await confirm(db, orderId)).outcome, "paid");
      const paymentId = `pay_second_${orderId}`;
      const results = [
        await confirm(db, orderId, { paymentId }),
        await confirm(db, orderId, { paymentId }),
      ];
      assert.deepEqual(results.map((r) => [r.outcome, r.refundDue]), [
        ["duplicate_payment", true],
        ["already_recorded", false],
      ]);
      assert.deepEqual((await refundRows(paymentId)).filter((r) => r.refund_due).length, 1);
    });
    await t.step("two events of a gateway payment of a upi_direct order", async () => {
      const orderId = await newOrderId(db, "upi_direct");
      const results = [
        await confirm(db, orderId, { amount: UPI_DIRECT_PAISE }),
        await confirm(db, orderId, { amount: UPI_DIRECT_PAISE }),
      ];
      assert.deepEqual(results.map((r) => [r.outcome, r.refundDue]), [
        ["method_mismatch", true],
        ["already_recorded", false],
      ]);
    });
    await t.step("the ledger itself refuses a second refund of one payment", async () => {
      const orderId = await newOrderId(db);
      await db.asRole(
        "service_role",
        (s) =>
          s.query("select public.update_order_status('cancelled', $1, p_note => 'Out of stock')", [orderId]),
      );
      await confirm(db, orderId, { paymentId: `pay_forged_${orderId}` });
      assert.equal(
        await sqlstate(
          db,
          `insert into public.payments (provider, provider_event_id, provider_payment_id, order_id, amount,
             currency, outcome, refund_due)
           values ('razorpay', $2, $3, $1, 715.45, 'INR', 'order_cancelled', true)`,
          [orderId, `evt_forged_${orderId}`, `pay_forged_${orderId}`],
          "postgres", // as the tables' owner: no API role inserts a payment at all (order_writes_test.ts)
        ),
        "23505",
      );
    });
  });

  test("confirm_payment() takes the gateway's payment of an order the seller marked paid as its payment, not for refund", async (t) => {
    const sellerMarks = async (orderId: string, status: string) =>
      await db.asRole(
        "service_role",
        (s) =>
          s.query("select public.update_order_status($2, $1, p_note => 'Buyer showed the receipt')", [
            orderId,
            status,
          ]),
      );
    await t.step("paid by the seller, then the gateway's payment", async () => {
      const orderId = await newOrderId(db);
      await sellerMarks(orderId, "paid");
      const result = await confirm(db, orderId);
      assert.deepEqual(
        [result.outcome, result.refundDue, result.orderStatus, result.emails],
        ["paid", false, "paid", []],
      );
      assert.deepEqual((await historyRows(db, orderId)).map((h) => [h.move, h.actor]), [
        ["->payment_pending", "system"],
        ["payment_pending>paid", "seller"],
      ]);
      assert.deepEqual((await statusEmailRows(db, orderId)).map((e) => e.kind), ["status_paid"]);
      // the order has its payment now: another one is a duplicate, due back
      const second = await confirm(db, orderId, { paymentId: `pay_second_${orderId}` });
      assert.deepEqual([second.outcome, second.refundDue], ["duplicate_payment", true]);
    });
    await t.step("paid by the seller and shipped, then the gateway's payment", async () => {
      const orderId = await newOrderId(db);
      await sellerMarks(orderId, "paid");
      await sellerMarks(orderId, "processing");
      const result = await confirm(db, orderId);
      assert.deepEqual([result.outcome, result.refundDue, result.orderStatus], ["paid", false, "processing"]);
    });
    await t.step("with a wrong amount it is not the order's payment: its money goes back", async () => {
      const orderId = await newOrderId(db);
      await sellerMarks(orderId, "paid");
      const result = await confirm(db, orderId, { amount: FINAL_PAISE - 100 });
      assert.deepEqual([result.outcome, result.refundDue], ["amount_mismatch", true]);
    });
    await t.step("after an earlier payment was recorded for the order, it is a duplicate", async () => {
      const orderId = await newOrderId(db);
      await confirm(db, orderId, { amount: 1, paymentId: `pay_short_${orderId}` });
      await sellerMarks(orderId, "paid");
      const result = await confirm(db, orderId);
      assert.deepEqual([result.outcome, result.refundDue], ["duplicate_payment", true]);
    });
  });

  test("confirm_payment() refuses what a direct caller gets wrong with OCN00, writing nothing", async (t) => {
    const orderId = await newOrderId(db);
    const cases: [string, unknown[]][] = [
      ["a provider that is no name", [orderId, FINAL_PAISE, "INR", "Razor Pay", "pay_1", "evt_1"]],
      ["no event id", [orderId, FINAL_PAISE, "INR", "razorpay", "pay_1", ""]],
      ["a line break in the payment id", [orderId, FINAL_PAISE, "INR", "razorpay", "pay\n1", "evt_1"]],
      ["a negative amount", [orderId, -1, "INR", "razorpay", "pay_1", "evt_1"]],
      ["a currency that is no code", [orderId, FINAL_PAISE, "rupees", "razorpay", "pay_1", "evt_1"]],
    ];
    for (const [label, params] of cases) {
      await t.step(label, async () => {
        assert.equal(
          await sqlstate(db, "select public.confirm_payment($1, $2, $3, $4, $5, $6)", params),
          "OCN00",
        );
      });
    }
    assert.equal(
      (await db.query("select 1 from public.payments where order_id = $1", [orderId])).length,
      0,
    );
  });

  test("payments keep one paid payment per order, even for their owner, and no API role inserts, updates, deletes or truncates one", async () => {
    const orderId = await newOrderId(db);
    await confirm(db, orderId);
    const forged =
      `insert into public.payments (provider, provider_event_id, provider_payment_id, order_id, amount,
        currency, outcome)
      values ('razorpay', 'evt_forged', 'pay_forged', $1, 715.45, 'INR', 'paid')`;
    assert.equal(await sqlstate(db, forged, [orderId], "postgres"), "23505");
    for (
      const sql of [
        forged,
        "update public.payments set amount = 0",
        "delete from public.payments",
        "truncate public.payments",
      ]
    ) {
      assert.equal(await sqlstate(db, sql, sql === forged ? [orderId] : []), "42501", sql);
    }
  });

  test("confirm_payment() pays an order once when ten events of one payment arrive together", async () => {
    const orderId = await newOrderId(db);
    const race = () =>
      Promise.all(
        Array.from(
          { length: 10 },
          (_, i) => confirm(db, orderId, { eventId: `evt_together_${orderId}_${i}` }),
        ),
      );
    // on PostgreSQL all ten have started and wait for the order row when it is released
    const results = db.kind === "postgres" ? await raceBehindRowLock(db, orderId, 10, race) : await race();
    assert.deepEqual(results.map((r) => r.outcome).sort(), [...Array(9).fill("already_paid"), "paid"]);
    assert.deepEqual(results.flatMap((r) => r.emails).map((e) => e.kind), ["status_paid", "seller_paid"]);
    assert.equal((await historyRows(db, orderId)).length, 2);
  });
}
