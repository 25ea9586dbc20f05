/**
 * The order e-mails as data: the snapshot `create_order` stores with each outbox row, and the message a
 * sender claims. Templates render from this alone, so an e-mail sent days later shows the order as it was.
 */

/** One ordered line as sold. Money in integer minor units (paise for INR). */
export interface OrderEmailItem {
  productName: string;
  variantName: string | null;
  quantity: number;
  unitPriceMinor: number;
  lineTotalMinor: number;
}

/** Everything the buyer and seller e-mails show. */
export interface OrderEmailData {
  orderId: string;
  orderNumber: string;
  /** ISO timestamp of the order. */
  createdAt: string;
  /** ISO 4217 code of the store, e.g. INR. */
  currency: string;
  /**
   * The order's status when the e-mail was written; the payment wording follows it. Rows written before
   * it was recorded have none: their orders were `payment_pending`, as every new order is.
   */
  status?: "pending" | "payment_pending" | "paid" | "processing" | "shipped" | "delivered" | "cancelled";
  store: { name: string; ownerEmail: string };
  buyer: { name: string; email: string; phone: string };
  shippingAddress: {
    line1: string;
    line2?: string | null;
    city: string;
    state: string;
    postalCode: string;
    country: string;
  };
  paymentMethod: "upi_direct" | "gateway";
  gatewayMethod: "card" | "upi" | "wallet" | null;
  paymentProofUrl: string | null;
  items: OrderEmailItem[];
  totalMinor: number;
  feeMinor: number;
  finalMinor: number;
}

/** Who an outbox e-mail is for. */
export type OrderEmailKind = "buyer" | "seller";

/** An outbox row claimed for sending. */
export interface OutboxEmail {
  id: string;
  orderId: string;
  kind: OrderEmailKind;
  to: string;
  replyTo: string | null;
  /** Attempts recorded before this claim. */
  attempts: number;
  /** This claim's token: the sender's result is recorded only while the row is still claimed under it. */
  claimToken: string;
  payload: OrderEmailData;
}

/** What a sender reports back for one claimed row, quoting the claim it sent under. */
export type EmailResult =
  | { id: string; claimToken: string; attempts: number; providerId: string }
  | { id: string; claimToken: string; attempts: number; error: string };
