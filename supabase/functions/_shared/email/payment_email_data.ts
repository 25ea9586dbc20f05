/**
 * The payment e-mails as data: the seller's "payment received" e-mail and the buyer's refund e-mail, each
 * rendered from its payload alone (as the status e-mails are). Money in integer minor units. The outbox
 * kinds `seller_paid` and `refund` carry them; confirm_payment and queue_refund_email write their payloads.
 */
import type { OrderEmailData, OrderEmailItem, OrderStatus } from "./order_email.ts";

/** A claimed outbox row of a payment e-mail: who it goes to, who a reply reaches, and its payload. */
export interface PaymentEmailRow<T> {
  orderId: string;
  to: string;
  replyTo: string | null;
  payload: T;
}

/** What the seller's e-mail shows when the gateway marked an order paid. */
export interface SellerPaidEmailData {
  orderId: string;
  orderNumber: string;
  /** ISO timestamp of the order. */
  createdAt: string;
  currency: string;
  store: { name: string; ownerEmail: string };
  buyer: OrderEmailData["buyer"];
  shippingAddress: OrderEmailData["shippingAddress"];
  /** The gateway method the order was priced with at checkout. */
  gatewayMethod: "card" | "upi" | "wallet";
  payment: {
    /** The method the buyer actually paid by, as the gateway reports it (`card`, `upi`, `netbanking`, ...). */
    method: string | null;
    amountMinor: number;
    /** What the gateway's fee for the method used costs above the fee the buyer was charged; 0 for none. */
    feeShortfallMinor: number;
    /** ISO timestamp of the payment's decision. */
    paidAt: string;
  };
  items: OrderEmailItem[];
  totalMinor: number;
  feeMinor: number;
  finalMinor: number;
  /**
   * The order's status when the e-mail is sent: "ready to ship" only while it is not shipped yet. Absent on
   * rows read before it was given (the request path's first try): `paid`, as the payment just made it.
   */
  currentStatus?: OrderStatus;
}

/** Why money goes back to the buyer. */
export type RefundReason =
  | "order_cancelled"
  | "duplicate_payment"
  | "method_mismatch"
  | "amount_mismatch"
  | "currency_mismatch";

/** What the buyer's e-mail shows when a refund has been issued through the gateway. */
export interface RefundEmailData {
  orderId: string;
  orderNumber: string;
  /** ISO timestamp of the order. */
  createdAt: string;
  /** The refund's currency (the payment's). */
  currency: string;
  store: { name: string; ownerEmail: string };
  reason: RefundReason;
  refund: {
    /** Our refund's id (refunds.id): its e-mail's idempotency key. */
    refundId: string;
    amountMinor: number;
    /** The method the refunded payment was made by (`card`, `upi`, `wallet`, `netbanking`, ...). */
    method: string | null;
    /** ISO timestamp of the refund's issue at the gateway. */
    issuedAt: string;
    /** The gateway's refund id, for the buyer to quote to their bank. */
    providerRefundId: string | null;
  };
}
