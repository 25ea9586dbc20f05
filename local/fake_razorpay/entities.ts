/**
 * The fake Razorpay's records, shaped as Razorpay's API documents its order, payment and refund entities
 * (the fields a client may read; amounts in paise, times in Unix seconds), and the ids it makes
 * (`order_`, `pay_`, `rfnd_`, `evt_` and 14 letters and digits, as Razorpay's look).
 */

/** Razorpay's order entity. */
export interface OrderEntity {
  id: string;
  entity: "order";
  amount: number;
  amount_paid: number;
  amount_due: number;
  currency: string;
  receipt: string | null;
  offer_id: null;
  status: "created" | "attempted" | "paid";
  attempts: number;
  notes: Record<string, string> | [];
  created_at: number;
}

/** Razorpay's payment entity. */
export interface PaymentEntity {
  id: string;
  entity: "payment";
  amount: number;
  currency: string;
  status: "created" | "authorized" | "captured" | "refunded" | "failed";
  order_id: string;
  invoice_id: null;
  international: boolean;
  method: string;
  amount_refunded: number;
  refund_status: "partial" | "full" | null;
  captured: boolean;
  description: string | null;
  card_id: string | null;
  bank: string | null;
  wallet: string | null;
  vpa: string | null;
  email: string;
  contact: string;
  notes: Record<string, string> | [];
  fee: number | null;
  tax: number | null;
  error_code: string | null;
  error_description: string | null;
  error_source: string | null;
  error_step: string | null;
  error_reason: string | null;
  acquirer_data: Record<string, string | null>;
  created_at: number;
}

/** Razorpay's refund entity. */
export interface RefundEntity {
  id: string;
  entity: "refund";
  amount: number;
  currency: string;
  payment_id: string;
  notes: Record<string, string> | [];
  receipt: string | null;
  acquirer_data: { arn: string | null };
  created_at: number;
  batch_id: null;
  status: "pending" | "processed" | "failed";
  speed_processed: "normal";
  speed_requested: string;
}

/** The payment methods the fake checkout offers. */
export const FAKE_METHODS = ["card", "upi", "wallet", "netbanking"] as const;

/** One method of {@linkcode FAKE_METHODS}. */
export type FakeMethod = typeof FAKE_METHODS[number];

const _ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A new id with Razorpay's shape: `<prefix>_` and 14 letters and digits. */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(14));
  return `${prefix}_${Array.from(bytes, (byte) => _ALPHABET[byte % _ALPHABET.length]).join("")}`;
}

/** Unix seconds. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** A new payment of `order` by `method`, with the method's own fields filled as Razorpay fills them. */
export function newPayment(
  order: OrderEntity,
  method: FakeMethod,
  status: PaymentEntity["status"],
  notes: Record<string, string> | [],
): PaymentEntity {
  const failed = status === "failed";
  return {
    id: newId("pay"),
    entity: "payment",
    amount: order.amount,
    currency: order.currency,
    status,
    order_id: order.id,
    invoice_id: null,
    international: false,
    method,
    amount_refunded: 0,
    refund_status: null,
    captured: status === "captured",
    description: null,
    card_id: method === "card" ? newId("card") : null,
    bank: method === "netbanking" ? "HDFC" : null,
    wallet: method === "wallet" ? "paytm" : null,
    vpa: method === "upi" ? "buyer@okicici" : null,
    email: "buyer@example.com",
    contact: "+919876543210",
    notes,
    fee: status === "captured" ? Math.round(order.amount * 0.02) : null,
    tax: status === "captured" ? 0 : null,
    error_code: failed ? "BAD_REQUEST_ERROR" : null,
    error_description: failed ? "Payment failed because the bank declined it (local test)" : null,
    error_source: failed ? "bank" : null,
    error_step: failed ? "payment_authorization" : null,
    error_reason: failed ? "payment_declined" : null,
    acquirer_data: method === "upi" ? { rrn: "512345678901" } : {},
    created_at: unixNow(),
  };
}
