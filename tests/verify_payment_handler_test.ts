/**
 * verifyPaymentHandler() with in-memory ports: what it hands the ledger. The method the buyer actually paid
 * by (a card on an order priced for UPI) reaches the ledger's port as the provider reports it, for the fee's
 * check; the ledger's SQL records it with the method-and-shortfall change.
 */
import assert from "node:assert/strict";
import type { PaymentConfirmation } from "../supabase/functions/_shared/payments/payment_confirmation.ts";
import type { PaymentProvider } from "../supabase/functions/_shared/payments/payment_provider.ts";
import { verifyPaymentHandler } from "../supabase/functions/verify-payment/handler.ts";

const ORDER_ID = "0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77";

Deno.test("verifyPaymentHandler() hands the ledger the payment's own method, amount and the event id checkout:<paymentId>", async () => {
  const seen: PaymentConfirmation[] = [];
  const provider = {
    name: "razorpay",
    keyId: "rzp_test_x",
    verifyCheckoutSignature: () => Promise.resolve(true),
    fetchPayment: (id: string) =>
      Promise.resolve({
        id,
        orderId: "order_Kept",
        amountMinor: 71_196,
        currency: "INR",
        status: "captured",
        method: "card",
      }),
  } as unknown as PaymentProvider;
  const handler = verifyPaymentHandler({
    config: {
      apiKeys: { public: ["anon"], service: [] },
      allowedOrigins: ["*"],
      rateLimits: { perIp: { limit: 0, windowSeconds: 3600 }, perEmail: { limit: 0, windowSeconds: 3600 } },
      databaseTimeoutMs: 6_000,
    },
    clock: () => new Date(),
    payments: {
      beginPayment: () =>
        Promise.resolve({
          order: {
            orderId: ORDER_ID,
            orderNumber: "ORD-2026-000042",
            storeId: "s",
            storeName: "Chai & Co.",
            status: "payment_pending",
            paymentMethod: "gateway",
            gatewayMethod: "upi",
            finalAmountMinor: 71_196,
            currency: "INR",
          },
          providerOrder: {
            provider: "razorpay",
            providerOrderId: "order_Kept",
            amountMinor: 71_196,
            currency: "INR",
          },
        }),
      keepProviderOrder: () => Promise.reject(new Error("verify-payment keeps nothing")),
    },
    ledger: {
      confirmPayment(confirmation) {
        seen.push(confirmation);
        return Promise.resolve({
          replayed: false,
          outcome: "paid",
          orderId: ORDER_ID,
          orderNumber: "ORD-2026-000042",
          orderStatus: "paid",
          refundDue: false,
          method: confirmation.method,
          feeShortfall: 0,
          refund: null,
          emails: [],
        });
      },
    },
    provider,
    sendEmails: () => Promise.resolve(),
    waitUntil: () => {},
    log: () => {},
  });
  const response = await handler(
    new Request("http://localhost/functions/v1/verify-payment", {
      method: "POST",
      headers: { apikey: "anon", "Content-Type": "application/json" },
      body: JSON.stringify({
        orderId: ORDER_ID,
        razorpayOrderId: "order_Kept",
        razorpayPaymentId: "pay_Card00000000001",
        razorpaySignature: "ab".repeat(32),
      }),
    }),
  );
  assert.equal(response.status, 200);
  assert.deepEqual(seen, [{
    provider: "razorpay",
    eventId: "checkout:pay_Card00000000001",
    providerPaymentId: "pay_Card00000000001",
    orderId: ORDER_ID,
    amountMinor: 71_196,
    currency: "INR",
    method: "card",
    providerOrderId: "order_Kept",
  }]);
});
