/**
 * The names of the methods a gateway reports a payment by, for the e-mails: Razorpay's `upi` and `wallet`
 * are the sub-methods of their names, `card`, `emi` and every other method the card's family. Pure.
 */
import { oneLine } from "./email_safety.ts";

const _NAMES: Record<string, string> = {
  card: "card",
  upi: "UPI",
  wallet: "wallet",
  netbanking: "netbanking",
  emi: "EMI",
  cardless_emi: "cardless EMI",
  paylater: "pay later",
  bank_transfer: "bank transfer",
};

/** The method's name for people; an unknown method as the gateway spells it (one line, at most 40). */
export function paymentMethodName(method: string | null): string {
  if (!method) return "the payment gateway";
  return _NAMES[method] ?? oneLine(method).slice(0, 40);
}

/** Where a refund by `method` goes back to, for the buyer. */
export function refundDestination(method: string | null): string {
  switch (method) {
    case "card":
    case "emi":
      return "the card you paid with";
    case "upi":
      return "the UPI account you paid from";
    case "wallet":
      return "the wallet you paid from";
    case "netbanking":
      return "the bank account you paid from";
    default:
      return "the account you paid from";
  }
}
