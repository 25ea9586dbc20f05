/**
 * POST /payment-webhook: the payment gateway's confirmation (Razorpay's webhook), as steps: check the
 * signature over the raw body, then parse the event, confirm the payment (one SQL call: the payment row,
 * the move to paid, the refund of money due back, the e-mails), answer, and send the e-mails after the
 * answer; or settle the refund a refund event names (one SQL call). The frame admits every caller
 * (`access: "none"`): the signature is this function's authentication, checked before anything is parsed or
 * stored.
 */
import type { Config } from "../_shared/config.ts";
import type { OutboxEmail } from "../_shared/email/order_email.ts";
import { internalError } from "../_shared/errors.ts";
import { describeError, type Logger } from "../_shared/http/log.ts";
import { decodeBodyText, parseJson } from "../_shared/http/request_body.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import { needsReview, type PaymentLedger } from "../_shared/payments/payment_confirmation.ts";
import type { RefundEvent, RefundStore } from "../_shared/payments/refunds.ts";
import {
  razorpayEventId,
  readRazorpayEvent,
  requireRazorpaySignature,
} from "../_shared/payments/razorpay_webhook.ts";

/** What the handler is built from; tests hand in their own clock, ledger and e-mail sender. */
export interface PaymentWebhookDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "paymentWebhookTimeoutMs" | "razorpayWebhookSecret">;
  clock: () => Date;
  payments: PaymentLedger;
  /** Settles refunds on the gateway's refund events. */
  refunds: Pick<RefundStore, "recordEvent">;
  /** Sends the claimed `paid` e-mail; runs after the response, inside `waitUntil`. */
  sendEmails: (emails: OutboxEmail[]) => Promise<void>;
  /** Keeps background work alive after the response (EdgeRuntime.waitUntil on Supabase). */
  waitUntil: (work: Promise<unknown>) => void;
  log: Logger;
  newRequestId?: () => string;
}

/** Builds the payment-webhook handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function paymentWebhookHandler(deps: PaymentWebhookDependencies) {
  return serveFunction({
    name: "payment_webhook",
    methods: ["POST"],
    access: "none",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _receive(context, deps),
  });
}

async function _receive(context: RequestContext, deps: PaymentWebhookDependencies): Promise<JsonReply> {
  const secret = deps.config.razorpayWebhookSecret;
  // a 500, not a 401: the gateway retries for a day, so no payment is lost while the secret is missing
  if (!secret) throw internalError(new Error("RAZORPAY_WEBHOOK_SECRET is not set: no event can be verified"));
  const { headers } = context.request;
  const body = await context.readBodyBytes();
  await requireRazorpaySignature(headers, body, secret);

  const eventId = razorpayEventId(headers);
  const event = readRazorpayEvent(parseJson(decodeBodyText(body)), eventId);
  context.annotate({ provider: "razorpay", webhookEvent: event.event, eventId });
  if ("ignored" in event) return { status: 200, body: { received: true, ignored: event.ignored } };

  // within Razorpay's 5 s: a slower answer is a failed delivery, retried (a retry answers as the first)
  const deadline = new Date(deps.clock().getTime() + deps.config.paymentWebhookTimeoutMs);
  if ("refund" in event) return await _settleRefund(context, deps, event.refund, deadline);
  const result = await deps.payments.confirmPayment(event.confirmation, { deadline });
  const { outcome, orderId, orderStatus, refundDue, replayed } = result;
  context.annotate({ outcome, orderId, refundDue, replayed });
  if (!replayed && needsReview(outcome)) {
    deps.log({
      event: "payment.needs_review",
      requestId: context.requestId,
      provider: "razorpay",
      eventId,
      outcome,
      orderId,
      refundDue,
    });
  }
  if (result.emails.length > 0) {
    deps.waitUntil(
      deps.sendEmails(result.emails).catch((error) =>
        deps.log({
          event: "status_email_failed",
          requestId: context.requestId,
          orderId,
          ...describeError(error),
        })
      ),
    );
  }
  return { status: 200, body: { received: true, outcome, orderId, orderStatus, refundDue, replayed } };
}

/** A refund event: the refund it names, settled; one not ours (made by hand at the gateway) is ignored. */
async function _settleRefund(
  context: RequestContext,
  deps: PaymentWebhookDependencies,
  event: RefundEvent,
  deadline: Date,
): Promise<JsonReply> {
  const result = await deps.refunds.recordEvent(event, { deadline });
  context.annotate({
    refundFound: result.found,
    refundId: result.refundId,
    refundStatus: result.status,
    replayed: result.replayed,
  });
  if (!result.found) {
    return { status: 200, body: { received: true, ignored: "no refund of ours has this id or receipt" } };
  }
  if (result.changed && result.status === "failed") {
    deps.log({
      event: "refund.failed",
      requestId: context.requestId,
      refundId: result.refundId,
      orderId: result.orderId,
    });
  }
  return {
    status: 200,
    body: {
      received: true,
      refundId: result.refundId,
      orderId: result.orderId,
      refundStatus: result.status,
      changed: result.changed,
      replayed: result.replayed,
    },
  };
}
