/**
 * The provider-neutral payment confirmation: what a gateway's adapter hands to `confirm_payment`, what
 * the database decided, and the port that records it. Every event is recorded once per (provider, event
 * id), and decided once per provider payment; only a correct payment of a `gateway` order that is
 * payment_pending marks it paid (or, when the seller marked it paid first, becomes its payment).
 */
import type { OutboxEmail } from "../email/order_email.ts";
import type { OrderStatus } from "../orders/order_status.ts";

/** What `confirm_payment` can decide about an event (see the payments migration for each one's meaning). */
export const PAYMENT_OUTCOMES = [
  "paid",
  "already_paid",
  "already_recorded",
  "duplicate_payment",
  "order_cancelled",
  "method_mismatch",
  "amount_mismatch",
  "currency_mismatch",
  "not_payable",
  "order_not_found",
] as const;

/** One outcome of {@linkcode PAYMENT_OUTCOMES}. */
export type PaymentOutcome = typeof PAYMENT_OUTCOMES[number];

/**
 * Whether a person must look at what an event decided: money that did not pay its order as it should
 * (refund it, or ask for the rest). A payment that paid its order, and a later event of a payment already
 * decided (reported when it was first decided), need no one.
 */
export function needsReview(outcome: PaymentOutcome): boolean {
  return outcome !== "paid" && outcome !== "already_paid" && outcome !== "already_recorded";
}

/** A gateway's report that it received a payment. Amounts in minor units (paise for INR). */
export interface PaymentConfirmation {
  /** The adapter's name, e.g. `razorpay`. */
  provider: string;
  /** The provider's id of this event: a second delivery of it changes nothing. */
  eventId: string;
  providerPaymentId: string;
  /**
   * Our order's id as the payment carried it (the notes of a webhook's payment, the order verify-payment
   * was asked about); null when it carried none. Heeded only when `providerOrderId` is no kept provider
   * order, and only for an order with no kept provider order of its own.
   */
  orderId: string | null;
  amountMinor: number;
  currency: string;
  /**
   * How the buyer paid, as the provider reports it (Razorpay: `card`, `upi`, `wallet`, `netbanking`, `emi`,
   * ...); null when the report does not say. The ledger records it, and what its rate costs above the fee
   * the order was priced with (`fee_shortfall`); every e-mail after the payment names it.
   */
  method: string | null;
  /**
   * The provider's order the payment paid (Razorpay's `order_id`), or null. When start-payment kept it for
   * one of our orders, the payment is decided for that order, whatever `orderId` says (Checkout lets the
   * buyer's browser write the notes).
   */
  providerOrderId: string | null;
}

/** A refund the ledger wrote for money due back; its amount in rupees, as the order's are. */
export interface RefundCreated {
  refundId: string;
  amount: number;
  currency: string;
  /** `pending` (the drain's run issues it through the gateway) or `manual` (the store returns it itself). */
  status: string;
}

/** What was decided; a replay answers what the first delivery of the event decided. */
export interface ConfirmationResult {
  replayed: boolean;
  outcome: PaymentOutcome;
  orderId: string | null;
  orderNumber: string | null;
  orderStatus: OrderStatus | null;
  /**
   * The money must go back to the buyer: the order was cancelled, already paid by another payment, not to
   * be paid through the gateway at all, or the amount or currency was not the order's.
   */
  refundDue: boolean;
  /** The method the payment was made by, as recorded (lower-case; null when unknown). */
  method: string | null;
  /** What the method's fee costs above the order's, in paise; null when unknown. */
  feeShortfall: number | null;
  /** The refund this event wrote (the payment's money is due back), or null. */
  refund: RefundCreated | null;
  /** The buyer's `paid` e-mail, claimed for sending, when this event marked the order paid. */
  emails: OutboxEmail[];
}

/** Records payment events; throws OrderError (INTERNAL_ERROR for outages). */
export interface PaymentLedger {
  /** Past `deadline` the ledger gives up, and nothing of the event is stored. */
  confirmPayment(confirmation: PaymentConfirmation, options: { deadline: Date }): Promise<ConfirmationResult>;
}
