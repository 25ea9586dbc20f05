/**
 * What the e-mails say about payment, from the order's status: nothing says a payment was verified or
 * received unless the order is `paid` (or has moved on from `paid`: processing, shipped and delivered come
 * only after it). A gateway order is awaiting its payment; a upi_direct order's transfer is unconfirmed until
 * the seller has checked it against the buyer's proof. A paid order says who confirmed the payment: the
 * gateway that reported it, or the seller who says they received it. A cancelled order says so and asks
 * for nothing; one that had been paid says how its money goes back (`cancelled_payment.ts`). Pure.
 */
import { type CancelledPaymentFacts, cancelledPaymentLines } from "./cancelled_payment.ts";
import type { OrderEmailData, StatusMover } from "./order_email.ts";
import { paymentMethodName } from "./payment_method_names.ts";

const _GATEWAY_NAMES = { card: "card", upi: "UPI", wallet: "wallet" } as const;

/** Who moved an order to `paid`, and the method the gateway payment that paid it was made by. */
interface _PaidFacts {
  paidBy?: StatusMover | null;
  /** Named instead of the method chosen at checkout: a buyer may choose UPI and pay by card. */
  paidWith?: string | null;
}

/** The payment lines for the buyer's or the seller's e-mail of `order`. */
export function describePayment(
  order:
    & Pick<OrderEmailData, "paymentMethod" | "gatewayMethod" | "status">
    & Omit<CancelledPaymentFacts, "paidBy" | "paymentMethod">
    & _PaidFacts,
  reader: "buyer" | "seller",
): string[] {
  const via = _GATEWAY_NAMES[order.gatewayMethod ?? "card"];
  if (isPaidStatus(order.status)) return _paid(order, via);
  if (order.status === "cancelled") {
    const money = cancelledPaymentLines({ ...order, paidBy: order.paidBy ?? null });
    if (!money) return ["This order has been cancelled: no payment is due for it."];
    // the buyer hears how their money goes back; the seller (whose alert a cancellation supersedes) only that
    return reader === "buyer"
      ? ["This order has been cancelled.", ...money]
      : ["This order has been cancelled: its payment goes back to the buyer."];
  }
  if (order.paymentMethod === "gateway") {
    return reader === "buyer" ? [`Awaiting payment through the payment gateway (${via}).`] : [
      `Awaiting payment through the payment gateway (${via}).`,
      "Do not ship before the gateway has reported the payment.",
    ];
  }
  return reader === "buyer"
    ? [
      "UPI direct transfer, not yet confirmed.",
      "The seller will check your payment against the proof you sent, then confirm your order.",
    ]
    : [
      "UPI direct transfer, not yet confirmed.",
      "Check the payment against the buyer's proof in your account before you ship.",
    ];
}

/** Whether an order with this status has been paid: `paid`, or a status only a paid order reaches. */
export function isPaidStatus(status: OrderEmailData["status"]): boolean {
  return status === "paid" || status === "processing" || status === "shipped" || status === "delivered";
}

/** A paid order's lines: who confirmed the payment, and how the buyer chose to pay when that is not implied. */
function _paid(
  order: Pick<OrderEmailData, "paymentMethod" | "gatewayMethod"> & _PaidFacts,
  via: string,
): string[] {
  const chosen = order.paymentMethod === "gateway"
    ? `Payment method chosen at checkout: payment gateway (${via}).`
    : "Payment method chosen at checkout: UPI direct transfer.";
  if (order.paidBy === "payment_gateway") {
    // the method the buyer actually paid by; rows from before it was recorded show the one chosen
    const method = order.paidWith
      ? ` (${paymentMethodName(order.paidWith)})`
      : order.gatewayMethod
      ? ` (${via})`
      : "";
    return [`Paid online through the payment gateway${method}, confirmed by the gateway.`];
  }
  if (order.paidBy === "seller") {
    return order.paymentMethod === "upi_direct"
      ? ["Paid by UPI direct transfer, confirmed by the seller."]
      : ["Payment confirmed by the seller.", chosen];
  }
  // moved by plain SQL, or recorded before the mover was: say only what the status proves
  return ["Marked as paid.", chosen];
}
