/**
 * POST /verify-payment: what the storefront sends from Razorpay Checkout's `handler`, decided as the
 * webhook decides it, as steps: parse, require the provider's keys (503), check Checkout's signature in
 * constant time (400, nothing stored), count the call and read the order with its kept provider order
 * (404; 409 PAYMENT_ORDER_MISMATCH for another provider order), fetch the payment from the provider,
 * capture it when only authorized, refuse one neither captured nor authorized (409 PAYMENT_NOT_CAPTURED),
 * then confirm it through the ledger under the event id `checkout:<paymentId>`: one decision per provider
 * payment, whether this call or the webhook comes first. The buyer's `paid` e-mail goes after the answer.
 */
import type { Config } from "../_shared/config.ts";
import type { OutboxEmail } from "../_shared/email/order_email.ts";
import { OrderError } from "../_shared/errors.ts";
import { clientIp } from "../_shared/http/client_ip.ts";
import { describeError, type Logger } from "../_shared/http/log.ts";
import { parseJson } from "../_shared/http/request_body.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import { requireProvider } from "../_shared/payments/configured_provider.ts";
import { needsReview, type PaymentLedger } from "../_shared/payments/payment_confirmation.ts";
import type { PaymentOrders } from "../_shared/payments/payment_orders.ts";
import type { PaymentProvider } from "../_shared/payments/payment_provider.ts";
import { capturedPayment } from "./captured_payment.ts";
import { parseVerifyPaymentRequest } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own clock, ports and provider. */
export interface VerifyPaymentDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "rateLimits" | "databaseTimeoutMs">;
  clock: () => Date;
  payments: PaymentOrders;
  ledger: PaymentLedger;
  /** Null when RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET are not set: every call is then 503. */
  provider: PaymentProvider | null;
  /** Sends the claimed `paid` e-mail; runs after the response, inside `waitUntil`. */
  sendEmails: (emails: OutboxEmail[]) => Promise<void>;
  waitUntil: (work: Promise<unknown>) => void;
  log: Logger;
  newRequestId?: () => string;
}

/** The ledger's event id of a payment verified from Checkout: one per payment, however often verified. */
export function checkoutEventId(paymentId: string): string {
  return `checkout:${paymentId}`;
}

/** Builds the verify-payment handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function verifyPaymentHandler(deps: VerifyPaymentDependencies) {
  return serveFunction({
    name: "verify_payment",
    methods: ["POST"],
    access: "project",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _verifyPayment(context, deps),
  });
}

async function _verifyPayment(context: RequestContext, deps: VerifyPaymentDependencies): Promise<JsonReply> {
  const request = parseVerifyPaymentRequest(parseJson(await context.readBody()));
  const provider = requireProvider(deps.provider);
  const { orderId, razorpayOrderId, razorpayPaymentId } = request;
  if (
    !(await provider.verifyCheckoutSignature(razorpayOrderId, razorpayPaymentId, request.razorpaySignature))
  ) {
    throw new OrderError(
      "PAYMENT_SIGNATURE_INVALID",
      "razorpaySignature is not Razorpay's signature of this order and payment",
    );
  }
  const deadline = () => new Date(deps.clock().getTime() + deps.config.databaseTimeoutMs);

  const start = await deps.payments.beginPayment(orderId, {
    clientIp: clientIp(context.request.headers, context.info),
    rateLimit: deps.config.rateLimits.perIp,
    deadline: deadline(),
  });
  if (!start.order) {
    throw new OrderError("ORDER_NOT_FOUND", "No order with this orderId", { details: { orderId } });
  }
  context.annotate({ orderId, providerPaymentId: razorpayPaymentId });
  if (start.providerOrder?.providerOrderId !== razorpayOrderId) {
    throw new OrderError(
      "PAYMENT_ORDER_MISMATCH",
      "razorpayOrderId is not the provider order start-payment opened for this order",
    );
  }

  const payment = await capturedPayment(provider, razorpayPaymentId);
  if (payment.orderId !== razorpayOrderId) {
    throw new OrderError("PAYMENT_ORDER_MISMATCH", "The payment is not for this order's provider order");
  }
  context.annotate({ paymentStatus: payment.status, paymentMethod: payment.method });
  if (payment.status !== "captured") {
    throw new OrderError("PAYMENT_NOT_CAPTURED", "The payment was neither captured nor authorized", {
      details: { status: payment.status },
    });
  }

  const eventId = checkoutEventId(payment.id);
  const result = await deps.ledger.confirmPayment({
    provider: provider.name,
    eventId,
    providerPaymentId: payment.id,
    orderId,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    method: payment.method,
    providerOrderId: payment.orderId,
  }, { deadline: deadline() });
  const { outcome, orderStatus, refundDue, replayed } = result;
  context.annotate({ outcome, refundDue, replayed });
  if (!replayed && needsReview(outcome)) {
    deps.log({
      event: "payment.needs_review",
      requestId: context.requestId,
      provider: provider.name,
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
  return {
    status: 200,
    body: {
      success: true,
      orderId,
      orderNumber: result.orderNumber ?? start.order.orderNumber,
      status: orderStatus ?? start.order.status,
      outcome,
    },
    headers: { "Cache-Control": "no-store" },
  };
}
