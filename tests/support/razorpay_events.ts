/**
 * Razorpay webhook fixtures, built from the sample payloads of Razorpay's documentation ("Payments Webhook
 * Events": payment.captured; "Orders Webhook Events": order.paid), with our order's id in the payment's
 * `notes.orderId` as the storefront sets it in Razorpay Checkout, signed as Razorpay signs them: the hex
 * HMAC-SHA256 of the raw body with the webhook secret in `X-Razorpay-Signature`, the event's id in
 * `x-razorpay-event-id`.
 */
import { hmacSha256Hex } from "../../supabase/functions/_shared/payments/webhook_signature.ts";

/** What varies between fixtures; the rest is the documentation's sample. */
export interface PaymentFixture {
  /** Our order's id, put in `notes.orderId`; null leaves notes empty (`[]`, as Razorpay sends none). */
  orderId: string | null;
  /** Paise. */
  amount: number;
  currency?: string;
  paymentId?: string;
  status?: string;
  /** The Razorpay order the payment paid (`order_id`): default one start-payment never kept; null: none. */
  providerOrderId?: string | null;
}

function _paymentEntity(fixture: PaymentFixture) {
  return {
    id: fixture.paymentId ?? `pay_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`,
    entity: "payment",
    amount: fixture.amount,
    currency: fixture.currency ?? "INR",
    base_amount: fixture.amount,
    status: fixture.status ?? "captured",
    order_id: fixture.providerOrderId === undefined ? "order_DESxiijbl9xjDB" : fixture.providerOrderId,
    invoice_id: null,
    international: false,
    method: "upi",
    amount_refunded: 0,
    amount_transferred: 0,
    refund_status: null,
    captured: true,
    description: null,
    card_id: null,
    bank: null,
    wallet: null,
    vpa: "gaurav.kumar@upi",
    email: "gaurav.kumar@example.com",
    contact: "+919876543210",
    notes: fixture.orderId === null ? [] : { orderId: fixture.orderId },
    fee: 2,
    tax: 0,
    error_code: null,
    error_description: null,
    error_source: null,
    error_step: null,
    error_reason: null,
    acquirer_data: { rrn: "0125836177" },
    created_at: 1567675356,
    upi: { payer_account_type: "credit_card", vpa: "gaurav.kumar@upi", flow: "intent" },
  };
}

/** A `payment.captured` event (the documentation's UPI sample) for `fixture`. */
export function paymentCapturedEvent(fixture: PaymentFixture) {
  return {
    entity: "event",
    account_id: "acc_BFQ7uQEaa7j2z7",
    event: "payment.captured",
    contains: ["payment"],
    payload: { payment: { entity: _paymentEntity(fixture) } },
    created_at: 1567675356,
  };
}

/** An `order.paid` event: the payment entity and the Razorpay order entity it paid. */
export function orderPaidEvent(fixture: PaymentFixture, orderNotes: Record<string, string> | [] = []) {
  const payment = _paymentEntity(fixture);
  return {
    entity: "event",
    account_id: "acc_BFQ7uQEaa7j2z7",
    event: "order.paid",
    contains: ["payment", "order"],
    payload: {
      payment: { entity: payment },
      order: {
        entity: {
          id: payment.order_id,
          entity: "order",
          amount: fixture.amount,
          amount_paid: fixture.amount,
          amount_due: 0,
          currency: payment.currency,
          receipt: "rcptid #1",
          offer_id: null,
          status: "paid",
          attempts: 1,
          notes: orderNotes,
          created_at: 1567674581,
        },
      },
    },
    created_at: 1567674606,
  };
}

/**
 * A `refund.processed` or `refund.failed` event (the documentation's sample, "Refunds Webhook Events"):
 * Razorpay's refund of `paymentId`, with the `receipt` it was created with (ours: our refund's id).
 */
export function refundEvent(
  status: "processed" | "failed",
  refund: { paymentId: string; receipt: string | null; refundId?: string; amount?: number },
) {
  const amount = refund.amount ?? 50_000;
  return {
    entity: "event",
    account_id: "acc_BFQ7uQEaa7j2z7",
    event: `refund.${status}`,
    contains: ["refund", "payment"],
    payload: {
      refund: {
        entity: {
          id: refund.refundId ?? "rfnd_FP8DDKxqJif6ca",
          entity: "refund",
          amount,
          currency: "INR",
          payment_id: refund.paymentId,
          notes: { comment: "Comment for refund" },
          receipt: refund.receipt,
          acquirer_data: { arn: status === "processed" ? "10000000000000" : null },
          created_at: 1597078866,
          batch_id: null,
          status,
          speed_processed: "normal",
          speed_requested: "normal",
        },
      },
      payment: {
        entity: {
          ..._paymentEntity({ orderId: null, amount, paymentId: refund.paymentId }),
          status: "refunded",
        },
      },
    },
    created_at: 1597078868,
  };
}

/** A `payment.failed` event: one the webhook acknowledges and ignores. */
export function paymentFailedEvent(fixture: PaymentFixture) {
  return { ...paymentCapturedEvent({ ...fixture, status: "failed" }), event: "payment.failed" };
}

/** The headers Razorpay sends with `body`, signed with `secret` (or the given signature). */
export async function razorpayHeaders(
  body: string,
  secret: string,
  options: { eventId?: string; signature?: string | null } = {},
): Promise<Record<string, string>> {
  const signature = options.signature === undefined
    ? await hmacSha256Hex(secret, new TextEncoder().encode(body))
    : options.signature;
  return {
    "Content-Type": "application/json",
    "x-razorpay-event-id": options.eventId ?? `evt_${crypto.randomUUID().replaceAll("-", "").slice(0, 14)}`,
    ...(signature === null ? {} : { "X-Razorpay-Signature": signature }),
  };
}

/** POSTs an event to the stack's payment-webhook as Razorpay would: the exact bytes it signed. */
export async function postRazorpayEvent(
  stack: { url: string; razorpayWebhookSecret: string },
  event: unknown,
  options: { eventId?: string; signature?: string | null; secret?: string } = {},
): Promise<Response> {
  const body = typeof event === "string" ? event : JSON.stringify(event, null, 2);
  return fetch(`${stack.url}/functions/v1/payment-webhook`, {
    method: "POST",
    headers: await razorpayHeaders(body, options.secret ?? stack.razorpayWebhookSecret, options),
    body,
  });
}
