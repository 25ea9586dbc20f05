/**
 * The order e-mails as data: the snapshot `create_order` stores with each outbox row, and the message a
 * sender claims. Templates render from this alone, so an e-mail sent days later shows the order as it was.
 */
import type { RefundEmailData, SellerPaidEmailData } from "./payment_email_data.ts";

/** One ordered line as sold. Money in integer minor units (paise for INR). */
export interface OrderEmailItem {
  productName: string;
  variantName: string | null;
  quantity: number;
  unitPriceMinor: number;
  lineTotalMinor: number;
}

/** An order's status, as the database names it. */
export type OrderStatus =
  | "pending"
  | "payment_pending"
  | "paid"
  | "processing"
  | "shipped"
  | "delivered"
  | "cancelled";

/**
 * The gateway's payments the ledger holds for an order, each payment once: how many, and their sum in minor
 * units (null when one is in another currency than the order's).
 */
export interface RecordedPayments {
  count: number;
  amountMinor: number | null;
}

/** One of an order's refunds: what goes back, and how (`manual`: the store returns it itself). */
export interface OrderRefund {
  amountMinor: number;
  currency: string;
  status: string;
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
   * The order's status: when `create_order` answered (the request path's first try), or when a sender read
   * the row right before its request (`prepare_email_sends`); the payment wording follows it. Rows written
   * before it was recorded have none: their orders were `payment_pending`, as every new order is.
   */
  status?: OrderStatus;
  /** Who moved the order to `paid` (null: nobody did); absent on the request path and in older rows. */
  paidBy?: StatusMover | null;
  /**
   * The method the gateway payment that paid the order was made by (`card`, `upi`, `netbanking`, ...), named
   * instead of the one chosen at checkout; absent when no gateway payment paid it (or did not say how).
   */
  paidWith?: string | null;
  /** The gateway's payments in the ledger, read with the status; absent on the request path. */
  recordedPayments?: RecordedPayments;
  /** The order's refunds, read with the status; absent on the request path. */
  refunds?: OrderRefund[];
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

/** Who an order's own e-mail is for. */
export type OrderEmailKind = "buyer" | "seller";

/** The statuses the buyer is e-mailed about when their order moves to them. */
export const STATUS_EMAIL_STATUSES = ["paid", "shipped", "delivered", "cancelled"] as const;

/** A status the buyer is e-mailed about. */
export type EmailedStatus = typeof STATUS_EMAIL_STATUSES[number];

/** The outbox kind of the buyer's e-mail about a status, e.g. `status_shipped`. */
export type StatusEmailKind = `status_${EmailedStatus}`;

/**
 * The payment e-mails: the seller's "payment received" when the gateway marked an order paid, and the
 * buyer's refund e-mail when the gateway took a refund.
 */
export type PaymentEmailKind = "seller_paid" | "refund";

/** Every kind of outbox e-mail. */
export type EmailKind = OrderEmailKind | StatusEmailKind | PaymentEmailKind;

/** Every outbox kind, as the outbox table's check lists them. */
export const EMAIL_KINDS: readonly EmailKind[] = [
  "buyer",
  "seller",
  ...STATUS_EMAIL_STATUSES.map((status): StatusEmailKind => `status_${status}`),
  "seller_paid",
  "refund",
];

/**
 * What the buyer's status e-mail shows: the snapshot `move_order_status` stores with its outbox row when
 * the order moves. `note` is the mover's note (a cancellation's reason); the tracking fields come with
 * `shipped`. Money in integer minor units.
 */
export interface StatusEmailData {
  orderId: string;
  orderNumber: string;
  /** ISO timestamp of the order. */
  createdAt: string;
  currency: string;
  status: EmailedStatus;
  /** The status the order left. */
  previousStatus: string;
  /** ISO timestamp of the move. */
  changedAt: string;
  store: { name: string; ownerEmail: string };
  paymentMethod: "upi_direct" | "gateway";
  gatewayMethod: "card" | "upi" | "wallet" | null;
  items: OrderEmailItem[];
  totalMinor: number;
  feeMinor: number;
  finalMinor: number;
  note: string | null;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  /** Who made this move. Absent on rows written before it was recorded. */
  movedBy?: StatusMover;
  /**
   * Who moved the order to `paid` (for a `paid` e-mail, this move's mover); null when nobody did. Absent
   * on rows written before it was recorded.
   */
  paidBy?: StatusMover | null;
  /**
   * The gateway's payments the ledger held for the order at the move, each payment once: how many, and
   * their sum in minor units (null when one is in another currency). Absent on rows written before it was
   * recorded.
   */
  recordedPayments?: RecordedPayments;
  /**
   * The method the gateway payment that paid the order was made by, as the gateway reported it (`card`,
   * `upi`, `netbanking`, ...); null when no gateway payment paid it or the gateway did not say. Absent on
   * rows written before it was recorded (the method chosen at checkout is shown then).
   */
  paidWith?: string | null;
  /**
   * The order's refunds at the move (this move's included): a `cancelled` e-mail says the money is being
   * refunded through the gateway, or that the store returns it itself (`manual`). Absent on rows written
   * before refunds were recorded.
   */
  refunds?: OrderRefund[];
  /**
   * The order's status when the e-mail is sent (it may have moved on since this move): what the e-mail says
   * comes next follows it. Absent on rows read before it was given: the move's own status.
   */
  currentStatus?: OrderStatus;
}

/**
 * Who moves an order: the seller (update-order-status), the gateway (payment-webhook), or the system (an
 * unpaid order's time running out in the outbox drain's run; plain SQL).
 */
export type StatusMover = "seller" | "payment_gateway" | "system";

/** What every claimed outbox row carries besides its kind and payload. */
interface _OutboxRow {
  id: string;
  orderId: string;
  to: string;
  replyTo: string | null;
  /** Attempts recorded before this claim. */
  attempts: number;
  /** This claim's token: the sender's result is recorded only while the row is still claimed under it. */
  claimToken: string;
  /**
   * The batch the row belongs to (`outbox/batch/<uuid>`, the batch request's idempotency key): it is sent
   * only with that batch, whole. Null or absent: the row is sent alone, under its own key.
   */
  batchKey?: string | null;
  /**
   * Which idempotency key the row goes under alone: 0 or absent its own, n > 0 `<its own>/retry/<n>`, a key
   * never used before (an operator's retry of a dead row whose key Resend no longer holds).
   */
  keyRound?: number;
}

/** An order's buyer confirmation or seller alert, claimed for sending. */
export interface OrderOutboxEmail extends _OutboxRow {
  kind: OrderEmailKind;
  payload: OrderEmailData;
}

/** A buyer's status e-mail, claimed for sending. */
export interface StatusOutboxEmail extends _OutboxRow {
  kind: StatusEmailKind;
  payload: StatusEmailData;
}

/** The seller's "payment received: ready to ship", claimed for sending. */
export interface SellerPaidOutboxEmail extends _OutboxRow {
  kind: "seller_paid";
  payload: SellerPaidEmailData;
}

/** The buyer's refund e-mail, claimed for sending: one per refund (its payload names it). */
export interface RefundOutboxEmail extends _OutboxRow {
  kind: "refund";
  payload: RefundEmailData;
}

/** An outbox row claimed for sending: its kind says which payload it carries. */
export type OutboxEmail = OrderOutboxEmail | StatusOutboxEmail | SellerPaidOutboxEmail | RefundOutboxEmail;

/** Whether a claimed row is a buyer's status e-mail. */
export function isStatusEmail(email: OutboxEmail): email is StatusOutboxEmail {
  return email.kind.startsWith("status_");
}

/** Whether a claimed row is an order's own buyer confirmation or seller alert. */
export function isOrderEmail(email: OutboxEmail): email is OrderOutboxEmail {
  return email.kind === "buyer" || email.kind === "seller";
}

/**
 * What a sender reports back for one claimed row, quoting the claim it sent under: sent (`providerId` null
 * when the provider already had it under its key), failed (`maybeDelivered` when a request may have delivered
 * it all the same), or released (never sent: the run's budget ended first, before its first request or
 * after a 429; `attempts` counts those refused requests).
 */
export type EmailResult =
  | { id: string; claimToken: string; attempts: number; providerId: string | null }
  | { id: string; claimToken: string; attempts: number; error: string; maybeDelivered: boolean }
  | { id: string; claimToken: string; released: true; attempts?: number };
