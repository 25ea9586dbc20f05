/**
 * The Razorpay adapter of the payment webhook, after Razorpay's documented webhook format: the request is
 * authentic when `X-Razorpay-Signature` is the hex HMAC-SHA256 of the raw body keyed with the webhook
 * secret (checked before anything is parsed); `x-razorpay-event-id` names the event, the same on every
 * retry; `payment.captured` and `order.paid` confirm a payment, whose entity (`payload.payment.entity`)
 * carries the amount in paise, the currency, the payment's `order_id` (the Razorpay order start-payment
 * opened, which decides the order in the ledger whatever the notes say) and the `notes` the storefront gave
 * Razorpay Checkout, where `notes.orderId` names our order (for `order.paid`, the Razorpay order's notes are
 * read when the payment's lack it); the buyer's browser writes those notes, so the ledger heeds them only
 * for a payment through no Razorpay order it kept. `refund.processed` and `refund.failed` settle a refund:
 * their refund entity (`payload.refund.entity`) carries Razorpay's refund id, the payment's id and the
 * `receipt` we created it with (our refund's id); like a payment event, each is decided once per event id.
 * Every other event (`payment.authorized` among them: only a captured payment pays) is acknowledged and
 * ignored.
 */
import { z } from "../zod.ts";
import { OrderError } from "../errors.ts";
import type { PaymentConfirmation } from "./payment_confirmation.ts";
import type { RefundEvent } from "./refunds.ts";
import { verifyHexHmacSha256 } from "./webhook_signature.ts";

/** The header carrying the body's signature. */
export const RAZORPAY_SIGNATURE_HEADER = "x-razorpay-signature";

/** The header carrying the event's id, unique per event and repeated on each retry of it. */
export const RAZORPAY_EVENT_ID_HEADER = "x-razorpay-event-id";

/** The events that confirm a payment. */
export const RAZORPAY_PAYMENT_EVENTS = ["payment.captured", "order.paid"] as const;

/** The provider name payments from this adapter are recorded under. */
export const RAZORPAY_PROVIDER = "razorpay";

/** The events that settle a refund, and the status each gives it. */
export const RAZORPAY_REFUND_EVENTS = {
  "refund.processed": "processed",
  "refund.failed": "failed",
} as const;

/** What a Razorpay event means here: a payment to confirm, a refund settled, or nothing to do (and why). */
export type RazorpayEvent =
  | { event: string; confirmation: PaymentConfirmation }
  | { event: string; refund: RefundEvent }
  | { event: string; ignored: string };

/**
 * Throws UNAUTHORIZED (401) unless the request carries a signature that matches its raw body; called
 * before the body is parsed, so an unsigned or forged request is neither parsed nor stored.
 */
export async function requireRazorpaySignature(
  headers: Headers,
  body: Uint8Array,
  secret: string,
): Promise<void> {
  const signature = headers.get(RAZORPAY_SIGNATURE_HEADER);
  if (signature === null || !(await verifyHexHmacSha256(body, signature, secret))) {
    throw new OrderError("UNAUTHORIZED", `The ${RAZORPAY_SIGNATURE_HEADER} header does not sign this body`);
  }
}

// notes: Razorpay sends an object of strings, or [] when there are none
const _Notes = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullish();

const _PaymentEntity = z.object({
  id: z.string().min(1).max(255),
  order_id: z.string().min(1).max(255).nullish(),
  amount: z.int().min(0),
  currency: z.string().regex(/^[A-Za-z]{3}$/),
  status: z.string(),
  method: z.string().max(40).nullish(),
  notes: _Notes,
});

const _RefundEntity = z.object({
  id: z.string().min(1).max(255),
  payment_id: z.string().min(1).max(255),
  receipt: z.string().max(255).nullish(),
});

/** The part of a Razorpay event the adapter reads (zod); every other field is ignored. */
export const RazorpayEventSchema = z.object({
  event: z.string(),
  payload: z.object({
    payment: z.object({ entity: _PaymentEntity }).optional(),
    order: z.object({ entity: z.object({ notes: _Notes }) }).optional(),
    refund: z.object({ entity: _RefundEntity }).optional(),
  }).optional(),
});

function _orderIdIn(notes: z.infer<typeof _Notes>): string | null {
  if (!notes || Array.isArray(notes)) return null;
  const orderId = notes.orderId;
  return typeof orderId === "string" && orderId.length > 0 ? orderId.slice(0, 255) : null;
}

/** The event id from its header, or VALIDATION_FAILED: without it a retry could not be recognised. */
export function razorpayEventId(headers: Headers): string {
  const eventId = headers.get(RAZORPAY_EVENT_ID_HEADER)?.trim();
  if (!eventId || eventId.length > 255 || !/^[\x21-\x7e]+$/.test(eventId)) {
    throw new OrderError("VALIDATION_FAILED", "The request is invalid", {
      details: [{ path: RAZORPAY_EVENT_ID_HEADER, message: "the event id header is required" }],
    });
  }
  return eventId;
}

/**
 * Reads a verified event's JSON: a payment to confirm for `payment.captured` and `order.paid`, a refund to
 * settle for `refund.processed` and `refund.failed`, else an ignored event. A payment or refund event without
 * its documented entity is VALIDATION_FAILED.
 */
export function readRazorpayEvent(body: unknown, eventId: string): RazorpayEvent {
  const parsed = RazorpayEventSchema.safeParse(body);
  if (!parsed.success) {
    throw new OrderError("VALIDATION_FAILED", "The webhook body is not a Razorpay event", {
      details: [{ path: "event", message: "a Razorpay event has an event name and a payload" }],
    });
  }
  const { event, payload } = parsed.data;
  if (Object.hasOwn(RAZORPAY_REFUND_EVENTS, event)) {
    const refund = payload?.refund?.entity;
    if (!refund) {
      throw new OrderError("VALIDATION_FAILED", "The webhook body is not a Razorpay event", {
        details: [{ path: "payload.refund.entity", message: `${event} carries a refund entity` }],
      });
    }
    return {
      event,
      refund: {
        provider: RAZORPAY_PROVIDER,
        eventId,
        providerPaymentId: refund.payment_id,
        providerRefundId: refund.id,
        receipt: refund.receipt || null,
        status: RAZORPAY_REFUND_EVENTS[event as keyof typeof RAZORPAY_REFUND_EVENTS],
      },
    };
  }
  if (!(RAZORPAY_PAYMENT_EVENTS as readonly string[]).includes(event)) {
    return { event, ignored: `${event} does not confirm a payment` };
  }
  const payment = payload?.payment?.entity;
  if (!payment) {
    throw new OrderError("VALIDATION_FAILED", "The webhook body is not a Razorpay event", {
      details: [{ path: "payload.payment.entity", message: `${event} carries a payment entity` }],
    });
  }
  if (payment.status !== "captured") {
    return { event, ignored: `the payment's status is ${payment.status.slice(0, 40)}, not captured` };
  }
  return {
    event,
    confirmation: {
      provider: RAZORPAY_PROVIDER,
      eventId,
      providerPaymentId: payment.id,
      orderId: _orderIdIn(payment.notes) ?? _orderIdIn(payload?.order?.entity.notes),
      amountMinor: payment.amount,
      currency: payment.currency.toUpperCase(),
      method: payment.method ?? null,
      providerOrderId: payment.order_id ?? null,
    },
  };
}
