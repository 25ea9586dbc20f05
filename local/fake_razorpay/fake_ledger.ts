/**
 * The fake Razorpay's books: its orders, payments and refunds, and what each API call or Checkout action
 * does to them, with Razorpay's documented rules (the amount at least ₹1.00, a receipt of at most 40
 * characters, at most 15 notes; only an authorized payment is captured, for its full amount; only a captured
 * payment is refunded, up to what is left of it) and the webhooks each change sends.
 */
import { checkoutSignature } from "../../supabase/functions/_shared/payments/checkout_signature.ts";
import {
  type FakeMethod,
  newId,
  newPayment,
  type OrderEntity,
  type PaymentEntity,
  type RefundEntity,
  unixNow,
} from "./entities.ts";
import type { WebhookSender } from "./webhooks.ts";

/** A refusal as Razorpay words it: a 400 with a description and the field at fault. */
export class RazorpayRefusal {
  constructor(readonly description: string, readonly field: string | null = null) {}
}

/** How a payment goes: captured at once (auto-capture), authorized only (the merchant captures), or failed. */
export type PaymentOutcome = "captured" | "authorized" | "failed";

/** What Checkout's pay step answers: the handler's response, or the error `payment.failed` receives. */
export type CheckoutAnswer =
  | { razorpay_payment_id: string; razorpay_order_id: string; razorpay_signature: string }
  | { error: CheckoutError };

/** The error Checkout's `payment.failed` handlers receive. */
export interface CheckoutError {
  code: string;
  description: string;
  source: string;
  step: string;
  reason: string;
  metadata: { order_id: string; payment_id?: string };
}

/** Notes as Razorpay takes them: at most 15 keys of strings of at most 256 characters; `[]` for none. */
export function readNotes(value: unknown): Record<string, string> | [] | RazorpayRefusal {
  if (value === undefined || value === null) return [];
  const entries = typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : null;
  if (
    !entries || entries.length > 15 || !entries.every(([, v]) => typeof v === "string" && v.length <= 256)
  ) {
    return new RazorpayRefusal(
      "notes must be at most 15 keys with string values of at most 256 characters",
      "notes",
    );
  }
  return entries.length === 0 ? [] : Object.fromEntries(entries) as Record<string, string>;
}

function _receipt(value: unknown): string | null | RazorpayRefusal {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length > 40) {
    return new RazorpayRefusal("The receipt may not be greater than 40 characters.", "receipt");
  }
  return value;
}

function _amount(value: unknown): number | RazorpayRefusal {
  if (!Number.isInteger(value)) return new RazorpayRefusal("The amount must be an integer.", "amount");
  if ((value as number) < 100) return new RazorpayRefusal("The amount must be at least INR 1.00", "amount");
  return value as number;
}

/** The books, and the webhooks their changes send. */
export class FakeLedger {
  readonly orders = new Map<string, OrderEntity>();
  readonly payments = new Map<string, PaymentEntity>();
  readonly refunds = new Map<string, RefundEntity>();

  constructor(readonly keySecret: string, readonly webhooks: WebhookSender) {}

  createOrder(input: Record<string, unknown>): OrderEntity | RazorpayRefusal {
    const amount = _amount(input.amount);
    if (amount instanceof RazorpayRefusal) return amount;
    if (typeof input.currency !== "string" || !/^[A-Z]{3}$/.test(input.currency)) {
      return new RazorpayRefusal("The currency must be a valid ISO 4217 code.", "currency");
    }
    const receipt = _receipt(input.receipt);
    if (receipt instanceof RazorpayRefusal) return receipt;
    const notes = readNotes(input.notes);
    if (notes instanceof RazorpayRefusal) return notes;
    const order: OrderEntity = {
      id: newId("order"),
      entity: "order",
      amount,
      amount_paid: 0,
      amount_due: amount,
      currency: input.currency,
      receipt,
      offer_id: null,
      status: "created",
      attempts: 0,
      notes,
      created_at: unixNow(),
    };
    this.orders.set(order.id, order);
    return order;
  }

  /** What Checkout does when the buyer pays (or fails to) by `method`. */
  async pay(
    orderId: string,
    options: { method?: FakeMethod; outcome?: PaymentOutcome; notes?: Record<string, string> | [] } = {},
  ): Promise<CheckoutAnswer> {
    const order = this.orders.get(orderId);
    if (!order) {
      return {
        error: _checkoutError(
          orderId,
          undefined,
          "The id provided does not exist",
          "input_validation_failed",
        ),
      };
    }
    if (order.status === "paid") {
      return {
        error: _checkoutError(orderId, undefined, "This order has already been paid", "order_already_paid"),
      };
    }
    order.attempts += 1;
    order.status = "attempted";
    const outcome = options.outcome ?? "captured";
    const status = outcome === "failed" ? "failed" : "authorized";
    const payment = newPayment(order, options.method ?? "card", status, options.notes ?? []);
    this.payments.set(payment.id, payment);
    if (outcome === "failed") {
      this.webhooks.emit("payment.failed", { payment: { entity: { ...payment } } });
      return {
        error: _checkoutError(orderId, payment.id, payment.error_description!, payment.error_reason!),
      };
    }
    this.webhooks.emit("payment.authorized", { payment: { entity: { ...payment } } });
    if (outcome === "captured") this.#capture(payment);
    return {
      razorpay_payment_id: payment.id,
      razorpay_order_id: order.id,
      razorpay_signature: await checkoutSignature(order.id, payment.id, this.keySecret),
    };
  }

  capturePayment(paymentId: string, input: Record<string, unknown>): PaymentEntity | RazorpayRefusal | null {
    const payment = this.payments.get(paymentId);
    if (!payment) return null;
    if (payment.status === "captured") return new RazorpayRefusal("This payment has already been captured");
    if (payment.status !== "authorized") {
      return new RazorpayRefusal(
        "Only payments which have been authorized and not yet captured can be captured",
      );
    }
    if (input.amount !== payment.amount) {
      return new RazorpayRefusal("Capture amount must be equal to the amount authorized", "amount");
    }
    if (input.currency !== payment.currency) {
      return new RazorpayRefusal("The currency should be the same as the payment currency", "currency");
    }
    this.#capture(payment);
    return payment;
  }

  /** The payment's refunds, newest first, at most `count` (Razorpay: 10 by default, at most 100). */
  listRefunds(paymentId: string, count: number): RefundEntity[] | null {
    if (!this.payments.has(paymentId)) return null;
    return [...this.refunds.values()].filter((refund) => refund.payment_id === paymentId).reverse()
      .slice(0, Math.min(100, Math.max(1, count)));
  }

  createRefund(paymentId: string, input: Record<string, unknown>): RefundEntity | RazorpayRefusal | null {
    const payment = this.payments.get(paymentId);
    if (!payment) return null;
    if (payment.status !== "captured") {
      return new RazorpayRefusal("The payment has been fully refunded already or is not captured");
    }
    const left = payment.amount - payment.amount_refunded;
    const amount = _amount(input.amount ?? left);
    if (amount instanceof RazorpayRefusal) return amount;
    if (amount > left) {
      return new RazorpayRefusal("The refund amount provided is greater than amount captured", "amount");
    }
    const receipt = _receipt(input.receipt);
    if (receipt instanceof RazorpayRefusal) return receipt;
    const notes = readNotes(input.notes);
    if (notes instanceof RazorpayRefusal) return notes;
    const refund: RefundEntity = {
      id: newId("rfnd"),
      entity: "refund",
      amount,
      currency: payment.currency,
      payment_id: payment.id,
      notes,
      receipt,
      acquirer_data: { arn: null },
      created_at: unixNow(),
      batch_id: null,
      status: "pending",
      speed_processed: "normal",
      speed_requested: typeof input.speed === "string" ? input.speed : "normal",
    };
    this.refunds.set(refund.id, refund);
    payment.amount_refunded += amount;
    payment.refund_status = payment.amount_refunded === payment.amount ? "full" : "partial";
    if (payment.refund_status === "full") payment.status = "refunded";
    return refund;
  }

  /** Ends a pending refund as Razorpay would: `processed` or `failed`, with its webhook. */
  settleRefund(refundId: string, status: "processed" | "failed"): void {
    const refund = this.refunds.get(refundId);
    if (!refund || refund.status !== "pending") return;
    refund.status = status;
    const payment = this.payments.get(refund.payment_id)!;
    if (status === "failed") {
      // the money stays with the merchant: what was refunded of the payment goes back down
      payment.amount_refunded -= refund.amount;
      payment.refund_status = payment.amount_refunded === 0 ? null : "partial";
      if (payment.status === "refunded") payment.status = "captured";
    } else {
      refund.acquirer_data = { arn: String(10_000_000_000 + Math.floor(Math.random() * 1e9)) };
    }
    this.webhooks.emit(`refund.${status}`, {
      refund: { entity: { ...refund } },
      payment: { entity: { ...payment } },
    });
  }

  #capture(payment: PaymentEntity): void {
    payment.status = "captured";
    payment.captured = true;
    payment.fee = Math.round(payment.amount * 0.02);
    payment.tax = 0;
    const order = this.orders.get(payment.order_id)!;
    order.status = "paid";
    order.amount_paid = payment.amount;
    order.amount_due = 0;
    this.webhooks.emit("payment.captured", { payment: { entity: { ...payment } } });
    this.webhooks.emit("order.paid", {
      payment: { entity: { ...payment } },
      order: { entity: { ...order } },
    });
  }
}

function _checkoutError(
  orderId: string,
  paymentId: string | undefined,
  description: string,
  reason: string,
): CheckoutError {
  return {
    code: "BAD_REQUEST_ERROR",
    description,
    source: "customer",
    step: "payment_authorization",
    reason,
    metadata: { order_id: orderId, ...(paymentId ? { payment_id: paymentId } : {}) },
  };
}
