/** Builders of the payment e-mails' rows for template tests and screenshots: the sample order, paid by UPI. */
import type {
  PaymentEmailRow,
  RefundEmailData,
  SellerPaidEmailData,
} from "../../supabase/functions/_shared/email/payment_email_data.ts";
import { orderEmailData } from "./order_emails.ts";

/** The sample order priced for UPI through the gateway (2 %): ₹997.00 + ₹19.94 = ₹1,016.94, paid by UPI. */
export function sellerPaidEmailRow(
  overrides: Partial<SellerPaidEmailData> = {},
): PaymentEmailRow<SellerPaidEmailData> {
  const order = orderEmailData();
  return {
    orderId: order.orderId,
    to: order.store.ownerEmail,
    replyTo: order.buyer.email,
    payload: {
      orderId: order.orderId,
      orderNumber: order.orderNumber,
      createdAt: order.createdAt,
      currency: order.currency,
      store: { ...order.store },
      buyer: { ...order.buyer },
      shippingAddress: { ...order.shippingAddress },
      gatewayMethod: "upi",
      payment: {
        method: "upi",
        amountMinor: 101_694,
        feeShortfallMinor: 0,
        paidAt: "2026-11-22T09:41:00.000Z",
      },
      items: order.items.map((item) => ({ ...item })),
      totalMinor: 99_700,
      feeMinor: 1_994,
      finalMinor: 101_694,
      ...overrides,
    },
  };
}

/** The buyer's refund e-mail of that order, cancelled after it was paid by card. */
export function refundEmailRow(overrides: Partial<RefundEmailData> = {}): PaymentEmailRow<RefundEmailData> {
  const order = orderEmailData();
  return {
    orderId: order.orderId,
    to: order.buyer.email,
    replyTo: order.store.ownerEmail,
    payload: {
      orderId: order.orderId,
      orderNumber: order.orderNumber,
      createdAt: order.createdAt,
      currency: order.currency,
      store: { ...order.store },
      reason: "order_cancelled",
      refund: {
        refundId: "019ad2c4-5e6f-7a1b-8c2d-3e4f5a6b7c8d",
        amountMinor: 101_694,
        method: "card",
        issuedAt: "2026-11-23T06:00:00.000Z",
        providerRefundId: "rfnd_FP8DDKxqJif6ca",
      },
      ...overrides,
    },
  };
}
