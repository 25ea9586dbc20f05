/**
 * update-order-status's cancellation answer over HTTP carries the refund it made due (contract: "the seller's
 * cancellation answer then carries refund: { amount, status }"): `pending` for a payment the gateway took,
 * issued by the drain's run; `manual` for a upi_direct transfer the seller had confirmed, which the store
 * returns itself. A cancellation that makes nothing due, and a repeated one, carry none.
 */
import assert from "node:assert/strict";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { CARD_ORDER_PAISE, placeOrder } from "./support/payments.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { refundRows } from "./support/refunds.ts";
import { postStatusMove } from "./support/status_moves.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST update-order-status answers the refund a cancellation of a paid order creates: pending for a gateway payment, manual for a confirmed UPI transfer", async (t) => {
    const stack = await startTestStack({ db });
    const cancel = async (orderId: string) => {
      const res = await postStatusMove(stack, { orderId, status: "cancelled", note: "Out of stock" });
      assert.equal(res.status, 200);
      return await res.json();
    };
    try {
      await t.step("paid through the gateway", async () => {
        const { orderId, orderNumber } = await placeOrder(db);
        await (await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: CARD_ORDER_PAISE })))
          .json();
        assert.deepEqual(await cancel(orderId), {
          success: true,
          orderId,
          orderNumber,
          status: "cancelled",
          allowed: [],
          changed: true,
          refund: { amount: 715.45, status: "pending" },
        });
        // the same cancellation again: nothing new, no second refund
        assert.equal("refund" in await cancel(orderId), false);
        assert.deepEqual((await refundRows(db, orderId)).map((r) => [r.outcome, r.status]), [[
          "paid",
          "pending",
        ]]);
      });
      await t.step("a upi_direct order the seller confirmed paid", async () => {
        const { orderId } = await placeOrder(db, "upi_direct");
        await (await postStatusMove(stack, { orderId, status: "paid", note: "UPI transfer checked" })).json();
        assert.deepEqual((await cancel(orderId)).refund, { amount: 698, status: "manual" });
      });
      await t.step("nobody paid", async () => {
        const { orderId } = await placeOrder(db);
        assert.equal("refund" in await cancel(orderId), false);
      });
    } finally {
      await stack.close();
    }
  });
}
