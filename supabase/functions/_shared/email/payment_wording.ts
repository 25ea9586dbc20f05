/**
 * What the e-mails say about payment, from the order's status: nothing says a payment was verified or
 * received unless the order is `paid`. A gateway order is awaiting its payment; a upi_direct order's
 * transfer is unconfirmed until the seller has checked it against the buyer's proof. Pure.
 */
import type { OrderEmailData } from "./order_email.ts";

const _GATEWAY_NAMES = { card: "card", upi: "UPI", wallet: "wallet" } as const;

/** The payment lines for the buyer's or the seller's e-mail of `order`. */
export function describePayment(
  order: Pick<OrderEmailData, "paymentMethod" | "gatewayMethod" | "status">,
  reader: "buyer" | "seller",
): string[] {
  const via = _GATEWAY_NAMES[order.gatewayMethod ?? "card"];
  if ((order.status ?? "payment_pending") === "paid") {
    return order.paymentMethod === "gateway"
      ? [`Paid online through the payment gateway (${via}).`]
      : ["Paid by UPI direct transfer, confirmed by the seller."];
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
