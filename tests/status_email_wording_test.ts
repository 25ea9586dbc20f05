/**
 * What the buyer's status e-mails say about the money follows what the database recorded, over HTTP on
 * the local stack: the `paid` e-mail names who confirmed the payment (the gateway, or the seller who
 * received it, and the method the buyer actually paid by), and the `cancelled` e-mail says a refund is due
 * only when a payment was recorded (a payment in the ledger, or the seller's confirmation), never for an
 * order nobody paid, and how it goes back: through the gateway by itself, or by the store.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { paymentCapturedEvent, postRazorpayEvent } from "./support/razorpay_events.ts";
import { postStatusMove } from "./support/status_moves.ts";

/** A gateway/card order of two Assam Tea: 715.45. */
const FINAL_PAISE = 71_545;

async function newOrderId(db: SqlDatabase): Promise<string> {
  const { response } = await callCreateOrder(db, createOrderPayload(await createTestStore(db)));
  return response.orderId;
}

async function stackWithMail(db: SqlDatabase) {
  const mail = capturingMailer();
  const stack = await startTestStack({ db, mailer: () => Promise.resolve(mail) });
  /** The plain text of the order's e-mail about `status`. */
  const emailText = async (orderId: string, status: string) => {
    await stack.settled();
    const message = mail.messages.find((m) => m.idempotencyKey === `order/${orderId}/status/${status}`);
    assert.ok(message, `no ${status} e-mail for ${orderId}`);
    return message.text;
  };
  return Object.assign(stack, { emailText });
}

/** The lines of the e-mail's PAYMENT section. */
function paymentSection(text: string): string[] {
  const lines = text.split("\n");
  const start = lines.indexOf("PAYMENT");
  assert.ok(start >= 0, text);
  const end = lines.indexOf("", start);
  return lines.slice(start + 1, end);
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("the paid e-mail says who confirmed the payment: the gateway, or the seller who received it", async () => {
    const stack = await stackWithMail(db);
    try {
      const byGateway = await newOrderId(db);
      await postRazorpayEvent(stack, paymentCapturedEvent({ orderId: byGateway, amount: FINAL_PAISE }));
      const gatewayText = await stack.emailText(byGateway, "paid");
      assert.ok(
        gatewayText.includes("The payment gateway has confirmed your payment for order"),
        gatewayText,
      );
      // the fixture's payment is Razorpay's UPI sample: the method actually used, not the card chosen
      assert.deepEqual(paymentSection(gatewayText), [
        "Paid online through the payment gateway (UPI), confirmed by the gateway.",
      ]);

      const bySeller = await newOrderId(db);
      await postStatusMove(stack, { orderId: bySeller, status: "paid", note: "Buyer showed the receipt" });
      const sellerText = await stack.emailText(bySeller, "paid");
      assert.ok(sellerText.includes("Test Store has confirmed receiving your payment for order"), sellerText);
      assert.deepEqual(paymentSection(sellerText), [
        "Payment confirmed by the seller.",
        "Payment method chosen at checkout: payment gateway (card).",
      ]);
      assert.ok(!/payment gateway has confirmed|confirmed by the gateway/.test(sellerText), sellerText);
    } finally {
      await stack.close();
    }
  });

  test("the cancelled e-mail says a refund is due only when a payment was recorded", async (t) => {
    const stack = await stackWithMail(db);
    const cancel = async (orderId: string) => {
      const res = await postStatusMove(stack, { orderId, status: "cancelled", note: "Out of stock" });
      assert.equal(res.status, 200);
      return paymentSection(await stack.emailText(orderId, "cancelled"));
    };
    const refund = "As the order is cancelled, this money is due back to you: reply to this e-mail to ask " +
      "Test Store about your refund.";
    const refunding = (amount: string) =>
      `As the order is cancelled, ${amount} is being refunded to you through the payment gateway: you will ` +
      "get an e-mail when the refund is issued, and banks take 5–7 working days to credit it.";
    try {
      await t.step("paid through the gateway", async () => {
        const orderId = await newOrderId(db);
        await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: FINAL_PAISE }));
        assert.deepEqual(await cancel(orderId), [
          "A payment of ₹715.45 was received for this order through the payment gateway.",
          refunding("₹715.45"),
        ]);
      });
      await t.step("marked paid by the seller, no gateway payment", async () => {
        const orderId = await newOrderId(db);
        await postStatusMove(stack, { orderId, status: "paid" });
        assert.deepEqual(await cancel(orderId), [
          "Test Store had confirmed receiving your payment (₹715.45).",
          refund,
        ]);
      });
      await t.step("a payment of the wrong amount recorded, the order never paid", async () => {
        const orderId = await newOrderId(db);
        await postRazorpayEvent(stack, paymentCapturedEvent({ orderId, amount: 50_000 }));
        assert.deepEqual(await cancel(orderId), [
          "A payment of ₹500.00 was received for this order through the payment gateway.",
          refunding("₹500.00"),
        ]);
      });
      await t.step("a UPI transfer the seller confirmed: the store returns it", async () => {
        const store = await createTestStore(db);
        const { response } = await callCreateOrder(
          db,
          createOrderPayload(store, {
            paymentMethod: "upi_direct",
            gatewayMethod: null,
            paymentProofUrl: "https://proof.example/upi/1.png",
            feeMinor: 0,
            finalMinor: 69_800,
          }),
        );
        await postStatusMove(stack, { orderId: response.orderId, status: "paid" });
        assert.deepEqual(await cancel(response.orderId), [
          "Test Store had confirmed receiving your payment (₹698.00).",
          "As the order is cancelled, Test Store will return ₹698.00 to you itself: reply to this e-mail to " +
          "arrange it with Test Store.",
        ]);
      });
      await t.step("nothing paid", async () => {
        const orderId = await newOrderId(db);
        const lines = await cancel(orderId);
        assert.deepEqual(lines, [
          "No payment had been recorded for this order.",
          "If you did pay, reply to this e-mail to tell Test Store.",
        ]);
        assert.ok(!/refund/i.test(await stack.emailText(orderId, "cancelled")));
      });
    } finally {
      await stack.close();
    }
  });
}
