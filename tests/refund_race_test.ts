/**
 * A cancellation racing the gateway's payment of one order (contract: "whichever commits first, exactly one
 * refund"), on PostgreSQL: a seller's update_order_status('cancelled') and confirm_payment for the order's
 * full amount are released at the same moment against the order's row, 24 rounds, each side first in half
 * of them. Whichever wins, the money that arrived is due back exactly once: `order_cancelled` when the
 * cancellation committed first, the cancellation's refund of the `paid` payment when the payment did.
 * Before refunds were written by the cancellation, about half the rounds ended cancelled with a `paid`
 * payment on no refund list. PGlite runs one transaction at a time, so it cannot race.
 */
import assert from "node:assert/strict";
import { sharedPostgres } from "./support/databases.ts";
import { CARD_ORDER_PAISE, placeOrder } from "./support/payments.ts";
import { refundRows } from "./support/refunds.ts";
import { raceBehindRowLock } from "./support/row_lock_race.ts";

const ROUNDS = 24;

const postgres = await sharedPostgres();
Deno.test({
  name:
    "[postgres] update_order_status() cancelling and confirm_payment() paying one order at once leave exactly one refund of the payment, whichever commits first (24 rounds)",
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = postgres!;
    const outcomes = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const { orderId } = await placeOrder(db);
      const paymentId = `pay_race_${round}_${orderId}`;
      const cancel = () =>
        db.asRole(
          "service_role",
          (s) =>
            s.query("select public.update_order_status('cancelled', $1, p_note => 'Out of stock')", [
              orderId,
            ]),
        );
      const pay = () =>
        db.asRole("service_role", (s) =>
          s.query<{ outcome: string }>(
            "select public.confirm_payment($1, $2, 'INR', 'razorpay', $3, $4, p_method => 'upi') ->> 'outcome' as outcome",
            [orderId, CARD_ORDER_PAISE, paymentId, `evt_${paymentId}`],
          ));
      const [first, second] = await raceBehindRowLock(db, orderId, 2, async () => {
        // each side joins the order's queue first in half the rounds
        const sides = round % 2 === 0 ? [cancel, pay] as const : [pay, cancel] as const;
        const earlier = sides[0]();
        await new Promise((resolve) => setTimeout(resolve, 5));
        const later = sides[1]();
        const [a, b] = await Promise.all([earlier, later]);
        return round % 2 === 0 ? [a, (b as { outcome: string }[])[0].outcome] as const : [
          b,
          (a as { outcome: string }[])[0].outcome,
        ] as const;
      });
      assert.ok(first);
      outcomes.set(second, (outcomes.get(second) ?? 0) + 1);

      const refunds = await refundRows(db, orderId);
      assert.deepEqual(
        refunds.map((r) => [r.provider_payment_id, r.amount, r.status]),
        [[paymentId, "715.45", "pending"]],
        `round ${round}: ${second}`,
      );
      assert.ok(["paid", "order_cancelled"].includes(refunds[0].outcome!), refunds[0].outcome!);
    }
    console.log(`payment outcomes over ${ROUNDS} rounds: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    // both orders of commit happened: the race was a race
    assert.deepEqual([...outcomes.keys()].sort(), ["order_cancelled", "paid"]);
  },
});
