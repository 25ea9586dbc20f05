/**
 * What a cancellation means for the buyer's money, in the buyer's e-mails of a cancelled order (the
 * `cancelled` e-mail, and the order confirmation of an order cancelled before it went): from the gateway's
 * payments in the ledger and the seller's confirmation that they received one. A refund is said to be due only
 * when one of them exists; an order nobody paid gets no promise. The refunds the database wrote say how the
 * money goes back: through the gateway by itself (being refunded, or refunded once the gateway holds it), or by
 * the store (`manual`). Pure.
 */
import { sentence } from "./email_text.ts";
import { formatMoney } from "./money_format.ts";
import type { OrderRefund, RecordedPayments, StatusMover } from "./order_email.ts";

/** The facts the lines are written from. */
export interface CancelledPaymentFacts {
  store: { name: string };
  currency: string;
  finalMinor: number;
  paymentMethod: "upi_direct" | "gateway";
  /** Who had moved the order to `paid`; null: nobody did. */
  paidBy: StatusMover | null;
  /** The gateway's payments the ledger holds; absent: none known. */
  recordedPayments?: RecordedPayments;
  /** The order's refunds; absent: none known. */
  refunds?: OrderRefund[];
}

/** Refund statuses in which the gateway holds the refund: its own e-mail has gone, or goes, to the buyer. */
const _WITH_THE_GATEWAY = new Set(["issued", "processed"]);

/**
 * The lines about a cancelled order's money, or null when no payment was recorded or confirmed for it (the
 * caller says so in its own words). A gateway order the seller marked paid is taken to be paid by its gateway
 * payment when one is recorded (confirm_payment decides so too).
 */
export function cancelledPaymentLines(facts: CancelledPaymentFacts): string[] | null {
  const store = facts.store.name;
  const recorded = facts.recordedPayments;
  const lines: string[] = [];
  if (recorded && recorded.count > 0) {
    const amount = recorded.amountMinor === null ? null : formatMoney(recorded.amountMinor, facts.currency);
    lines.push(
      recorded.count === 1
        ? `A payment${amount ? ` of ${amount}` : ""} was received for this order through the payment gateway.`
        : `${recorded.count} payments${
          amount ? ` totalling ${amount}` : ""
        } were received for this order through the payment gateway.`,
    );
  }
  const total = formatMoney(facts.finalMinor, facts.currency);
  if (facts.paidBy === "seller" && (lines.length === 0 || facts.paymentMethod === "upi_direct")) {
    lines.push(`${store} had confirmed receiving your payment (${total}).`);
  } else if (facts.paidBy && lines.length === 0) {
    lines.push(`This order had been marked as paid (${total}).`);
  }
  if (lines.length === 0) return null;
  const refunds = facts.refunds ?? [];
  const throughGateway = refunds.filter((refund) => refund.status !== "manual");
  const byTheStore = refunds.filter((refund) => refund.status === "manual");
  if (throughGateway.length > 0) {
    const sum = _sum(throughGateway);
    lines.push(
      throughGateway.every((refund) => _WITH_THE_GATEWAY.has(refund.status))
        ? `As the order is cancelled, ${
          sum ?? "this money"
        } has been refunded to you through the payment gateway: banks take 5–7 working days to credit it.`
        : `As the order is cancelled, ${
          sum ?? "this money"
        } is being refunded to you through the payment gateway: you will get an e-mail when the refund is ` +
          "issued, and banks take 5–7 working days to credit it.",
    );
  }
  if (byTheStore.length > 0) {
    lines.push(
      sentence(
        `As the order is cancelled, ${store} will return ${
          _sum(byTheStore) ?? "your payment"
        } to you itself: reply to this e-mail to arrange it with ${store}`,
      ),
    );
  }
  if (refunds.length > 0) return lines;
  return [
    ...lines,
    `As the order is cancelled, this money is due back to you: reply to this e-mail to ask ${store} about your refund.`,
  ];
}

/** Refunds' total, when they share one currency. */
function _sum(refunds: OrderRefund[]): string | null {
  const currency = refunds[0].currency;
  if (!refunds.every((refund) => refund.currency === currency)) return null;
  return formatMoney(refunds.reduce((sum, refund) => sum + refund.amountMinor, 0), currency);
}
