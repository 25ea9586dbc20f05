/**
 * The functions' answers as zod schemas, for the API description only: the handlers build their bodies as
 * object literals, and the end-to-end tests check every live answer against what these describe
 * (`tests/support/openapi_check.ts`). Amounts are decimals in the store's currency, as the wire has them.
 */
import { z } from "zod";
import { EMAIL_KINDS } from "../supabase/functions/_shared/email/order_email.ts";
import { ORDER_STATUSES } from "../supabase/functions/_shared/orders/order_status.ts";
import { PAYMENT_OUTCOMES } from "../supabase/functions/_shared/payments/payment_confirmation.ts";
import { REFUND_STATUSES } from "../supabase/functions/_shared/payments/refunds.ts";

/** A UUID as the functions answer it (lower case). */
export const Uuid = z.guid();

/** `ORD-<year>-<sequence>`, the sequence zero-padded to at least 6 digits. */
export const OrderNumber = z.string().regex(/^ORD-\d{4}-\d{6,}$/).meta({ examples: ["ORD-2026-000001"] });

/** An order's status. */
export const OrderStatus = z.enum(ORDER_STATUSES);

/** An amount in the store's currency, at most 2 decimals (rupees and paise for INR). */
export const Amount = z.number().min(0).meta({
  description: "A decimal amount in the store's currency with at most 2 decimals, e.g. 1016.94",
});

/** create-order's 200. */
export const CreateOrderResponse = z.strictObject({
  success: z.literal(true),
  orderId: Uuid,
  orderNumber: OrderNumber,
  totalAmount: Amount.meta({ description: "Σ price × quantity, from the catalogue" }),
  checkoutFee: Amount.meta({ description: "totalAmount × the payment method's rate, rounded half up" }),
  finalAmount: Amount.meta({ description: "totalAmount + checkoutFee: what the buyer pays" }),
  status: z.literal("payment_pending"),
});

/** update-order-status's 200. */
export const StatusMoveResponse = z.strictObject({
  success: z.literal(true),
  orderId: Uuid,
  orderNumber: OrderNumber,
  status: OrderStatus,
  allowed: z.array(OrderStatus).meta({ description: "the moves allowed from the new status" }),
  changed: z.boolean().meta({ description: "false when the order already had this status (no-op)" }),
  refund: z.strictObject({
    amount: Amount.meta({ description: "what goes back to the buyer, in the store's currency" }),
    status: z.enum(["pending", "manual"]).meta({
      description: "`pending`: the outbox drain's run refunds it through Razorpay; `manual`: a upi_direct " +
        "payment the seller had confirmed, which the store returns itself",
    }),
  }).optional().meta({
    description: "present when this cancellation made money due back: the refund it created",
  }),
});

/** payment-webhook's 200 for an event that confirms nothing. */
export const WebhookIgnoredResponse = z.strictObject({
  received: z.literal(true),
  ignored: z.string().meta({ description: "why the event changes nothing" }),
});

/** payment-webhook's 200 for a payment confirmation. */
export const WebhookConfirmationResponse = z.strictObject({
  received: z.literal(true),
  outcome: z.enum(PAYMENT_OUTCOMES),
  orderId: Uuid.nullable(),
  orderStatus: OrderStatus.nullable(),
  refundDue: z.boolean().meta({ description: "the money must go back to the buyer" }),
  replayed: z.boolean().meta({ description: "this event was received before; the first decision stands" }),
});

/** payment-webhook's 200 for a refund event of one of our refunds. */
export const WebhookRefundResponse = z.strictObject({
  received: z.literal(true),
  refundId: Uuid.meta({ description: "our refund (refunds.id), the receipt Razorpay echoes" }),
  orderId: Uuid,
  refundStatus: z.enum(REFUND_STATUSES).meta({ description: "the refund's status now" }),
  changed: z.boolean().meta({ description: "false for a replayed or stale event: nothing changed" }),
  replayed: z.boolean().meta({
    description: "this event (x-razorpay-event-id) was received before: it changed nothing now",
  }),
});

/** start-payment's 200: what Razorpay Checkout opens with. No buyer data. */
export const StartPaymentResponse = z.strictObject({
  success: z.literal(true),
  orderId: Uuid,
  orderNumber: OrderNumber,
  provider: z.literal("razorpay"),
  keyId: z.string().meta({ description: "the public key id: Checkout's `key`" }),
  providerOrderId: z.string().meta({
    description: "the Razorpay order kept for this order (one per order): Checkout's `order_id`",
    examples: ["order_IluGWxBm9U8zJ8"],
  }),
  amount: z.int().min(0).meta({ description: "finalAmount in paise (minor units): Checkout's `amount`" }),
  currency: z.string().regex(/^[A-Z]{3}$/),
  method: z.enum(["card", "upi", "wallet"]).meta({
    description:
      "the gateway method the order was priced with: offer Checkout only this one (config.display)",
  }),
  storeName: z.string().meta({ description: "Checkout's `name`" }),
});

/** verify-payment's 200: what the payment decided, as payment-webhook decides it. */
export const VerifyPaymentResponse = z.strictObject({
  success: z.literal(true),
  orderId: Uuid,
  orderNumber: OrderNumber,
  status: OrderStatus.meta({ description: "the order's status now: `paid` when this payment paid it" }),
  outcome: z.enum(PAYMENT_OUTCOMES).meta({ description: "the ledger's decision (payment-webhook's table)" }),
});

/** track-order's 200: what a guest tracking link shows, never contact data. */
export const TrackOrderResponse = z.strictObject({
  success: z.literal(true),
  orderId: Uuid,
  orderNumber: OrderNumber,
  status: OrderStatus,
  createdAt: z.string(),
  storeName: z.string(),
  timeZone: z.string().meta({
    description: "the store's IANA time zone (default Asia/Kolkata): show the order's dates in it",
    examples: ["Asia/Kolkata"],
  }),
  currency: z.string().regex(/^[A-Z]{3}$/),
  paymentMethod: z.enum(["upi_direct", "gateway"]),
  gatewayMethod: z.enum(["card", "upi", "wallet"]).nullable().meta({
    description: "the gateway method the order was priced with, which names its fee; null for upi_direct",
  }),
  items: z.array(z.strictObject({
    productName: z.string(),
    variantName: z.string().nullable(),
    quantity: z.int().min(1),
    unitPrice: Amount,
    lineTotal: Amount,
  })),
  totalAmount: Amount,
  checkoutFee: Amount,
  finalAmount: Amount,
  history: z.array(z.strictObject({ status: OrderStatus, at: z.string() })).meta({
    description: "every status the order took, oldest first",
  }),
  shipment: z.strictObject({
    carrier: z.string().nullable(),
    trackingNumber: z.string().nullable(),
    trackingUrl: z.string().nullable(),
  }).nullable().meta({ description: "null until the order has shipped" }),
});

const _Count = z.int().min(0);

/** outbox-drain's 200: what one drain run did. No address, no error text. */
export const DrainResponse = z.strictObject({
  /**
   * the unpaid orders the run cancelled before sending, and how many due it left for a later run (a row they
   * need was locked: the cancellation never waits); null when that step failed (the rest went on)
   */
  unpaidOrders: z.strictObject({ cancelled: _Count, orderIds: z.array(Uuid), skipped: _Count }).nullable(),
  emails: z.strictObject({
    claimed: _Count,
    sent: _Count,
    failed: _Count,
    dead: _Count,
    /** results refused: their claim had expired, or another run had claimed the row */
    ignored: _Count,
    /**
     * e-mails not sent because their order has left the state they ask someone to act on (found at a claim, or
     * by the read right before their request)
     */
    superseded: _Count,
    /**
     * rows claimed and never sent (the run's budget ran out first, or their read right before the request
     * failed), handed back for the next run
     */
    released: _Count,
  }),
  /** every dead row counted and the newest 20 listed, read after the run's sends (those it made dead included) */
  deadEmails: z.strictObject({
    total: _Count,
    emails: z.array(z.strictObject({
      id: Uuid,
      orderId: Uuid,
      kind: z.enum(EMAIL_KINDS as [string, ...string[]]),
      failures: _Count,
      attempts: _Count,
      lastTriedAt: z.string(),
    })),
  }),
  /** what the run did to refunds; null when it issues none (no Razorpay keys configured) */
  refunds: z.strictObject({
    /** refunds Razorpay now holds: created by this run, or adopted (found under our receipt) */
    issued: _Count,
    adopted: _Count,
    /** attempts that failed, each retried by a later run until the tenth */
    failed: _Count,
    /** claimed and handed back untried: the budget ended first, or Razorpay failed three times in a row */
    released: _Count,
  }).nullable(),
  /** the refunds that failed (10 attempts, or Razorpay's refund.failed), the newest 20: for a person */
  failedRefunds: z.array(z.strictObject({ refundId: Uuid, orderId: Uuid })),
  purged: z.strictObject({ idempotencyKeys: _Count, rateLimitWindows: _Count }).nullable(),
});
