/**
 * What the API description says of each function: its path and method, who may call it, what it reads,
 * what it answers and which error codes it can give. The schemas themselves come from zod
 * (`openapi_document.ts`); this is the table the document is built from.
 */
import type { ErrorCode } from "../supabase/functions/_shared/errors.ts";

/** One function's entry. */
export interface FunctionDescription {
  path: string;
  method: "get" | "post";
  operationId: string;
  summary: string;
  description: string;
  /** Which key the frame admits: any project key, service and secret keys only, or none. */
  access: "project" | "service" | "none";
  parameters: Record<string, unknown>[];
  request?: { schema: string; required: boolean };
  /** The component names of its 200 bodies. */
  success: string[];
  successDescription: string;
  /** Whether a 200 may be a replay (`Idempotent-Replayed`). */
  replayable?: boolean;
  /** Every error code it can answer; each code's status is the contract's. */
  errors: ErrorCode[];
  /** When a code happens, where it is worth saying for this function. */
  errorWhen: Partial<Record<ErrorCode, string>>;
}

/** The frame's failures, common to every function that reads a body. */
const _BODY_ERRORS: ErrorCode[] = [
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "REQUEST_TIMEOUT",
  "PAYLOAD_TOO_LARGE",
  "INTERNAL_ERROR",
];

const _BODY_WHEN: Partial<Record<ErrorCode, string>> = {
  INVALID_JSON: "the body is not UTF-8 JSON",
  VALIDATION_FAILED: "a field breaks its rule; details list each `{ path, message }`",
  REQUEST_TIMEOUT: "the body did not arrive within 10 s",
  PAYLOAD_TOO_LARGE: "the body is over 64 KiB",
  INTERNAL_ERROR: "the database is down or slower than the function's budget, or a bug; message " +
    "`Internal error` only",
};

/** The errors of both payment functions, besides their own. */
const _PAYMENT_ERRORS: ErrorCode[] = [
  ..._BODY_ERRORS,
  "UNAUTHORIZED",
  "ORDER_NOT_FOUND",
  "RATE_LIMITED",
  "PAYMENT_PROVIDER_ERROR",
  "PAYMENT_PROVIDER_NOT_CONFIGURED",
];

const _PAYMENT_WHEN: Partial<Record<ErrorCode, string>> = {
  ..._BODY_WHEN,
  UNAUTHORIZED: "no project key",
  ORDER_NOT_FOUND: "no order with this orderId",
  RATE_LIMITED: "too many payment calls from this client IP (create-order's per-IP limit, its own " +
    "count); see Retry-After",
  PAYMENT_PROVIDER_ERROR: "Razorpay answered an error or nothing within PAYMENT_PROVIDER_TIMEOUT_MS; " +
    "nothing was kept or stored: retry",
  PAYMENT_PROVIDER_NOT_CONFIGURED: "RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET are not set",
};

/** The seven functions. */
export const FUNCTIONS: FunctionDescription[] = [
  {
    path: "/create-order",
    method: "post",
    operationId: "createOrder",
    summary: "Create an order",
    description: "A storefront's checkout: validates the order, prices it from the catalogue (each item's " +
      "`price` must equal the current price), adds the payment method's checkout fee, stores it with its " +
      "order number and e-mails buyer and seller. Any project key (anon or publishable from a browser); " +
      "with supabase-js a signed-in buyer's access token beside it names the buyer. Send an " +
      "Idempotency-Key per checkout attempt: a retry with the same key and body answers the first order.",
    access: "project",
    parameters: [{
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1–255 printable ASCII characters, scoped to the store; kept at least 24 hours.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    }],
    request: { schema: "CreateOrderRequest", required: true },
    success: ["CreateOrderResponse"],
    successDescription: "The order was stored; its e-mails are on their way.",
    replayable: true,
    errors: [
      ..._BODY_ERRORS,
      "PRICE_MISMATCH",
      "VARIANT_REQUIRED",
      "UNAUTHORIZED",
      "STORE_NOT_FOUND",
      "PRODUCT_NOT_FOUND",
      "VARIANT_NOT_FOUND",
      "IDEMPOTENCY_KEY_IN_USE",
      "OUT_OF_STOCK",
      "IDEMPOTENCY_KEY_REUSED",
      "RATE_LIMITED",
    ],
    errorWhen: {
      ..._BODY_WHEN,
      PRICE_MISMATCH: "an item's price differs from the catalogue; details give every current price",
      VARIANT_REQUIRED: "a product sold in variants was ordered without `variantId`",
      UNAUTHORIZED: "no project key",
      STORE_NOT_FOUND: "no active store with this id",
      PRODUCT_NOT_FOUND: "a product is unknown, inactive or of another store",
      VARIANT_NOT_FOUND: "a variant is unknown, inactive or of another product",
      IDEMPOTENCY_KEY_IN_USE: "the first request with this key is still running",
      OUT_OF_STOCK: "an item wants more than its stock has left",
      IDEMPOTENCY_KEY_REUSED: "this key was used with another body",
      RATE_LIMITED:
        "too many orders from this client IP or for this buyer e-mail, or (Retry-After 1) more of " +
        "this store's orders at once than it takes until the deadline; see Retry-After",
    },
  },
  {
    path: "/start-payment",
    method: "post",
    operationId: "startPayment",
    summary: "Open the Razorpay payment of a gateway order",
    description: "For a `gateway` order in `payment_pending`: creates its Razorpay order (amount in paise, " +
      "the order number as receipt, `notes: { orderId, storeId }`) once and keeps it, so every later call " +
      "answers the same one without calling Razorpay; answers what Razorpay Checkout opens with. Any " +
      "project key. No buyer data in the answer.",
    access: "project",
    parameters: [],
    request: { schema: "StartPaymentRequest", required: true },
    success: ["StartPaymentResponse"],
    successDescription: "The payment to open (`Cache-Control: no-store`).",
    errors: [..._PAYMENT_ERRORS, "ORDER_NOT_PAYABLE"],
    errorWhen: {
      ..._PAYMENT_WHEN,
      ORDER_NOT_PAYABLE: "the order is not a gateway order awaiting its payment, or its final amount is " +
        "below Razorpay's minimum (100 subunits: ₹1.00); details give its status and payment method",
    },
  },
  {
    path: "/verify-payment",
    method: "post",
    operationId: "verifyPayment",
    summary: "Verify what Razorpay Checkout's handler received, and pay the order",
    description: "Send what Checkout's `handler` received, with the order's id. The signature (hex " +
      "HMAC-SHA256 of `razorpayOrderId|razorpayPaymentId` with the key secret) is checked in constant time; " +
      "the payment is read from Razorpay, captured when only authorized, and decided as payment-webhook " +
      "decides it (one decision per Razorpay payment, whichever of the two comes first). Any project key.",
    access: "project",
    parameters: [],
    request: { schema: "VerifyPaymentRequest", required: true },
    success: ["VerifyPaymentResponse"],
    successDescription: "The payment was decided: `outcome` says how (`paid` when it paid the order).",
    errors: [
      ..._PAYMENT_ERRORS,
      "PAYMENT_SIGNATURE_INVALID",
      "PAYMENT_ORDER_MISMATCH",
      "PAYMENT_NOT_CAPTURED",
    ],
    errorWhen: {
      ..._PAYMENT_WHEN,
      PAYMENT_SIGNATURE_INVALID: "razorpaySignature is not Razorpay's for this order and payment; nothing " +
        "was stored",
      PAYMENT_ORDER_MISMATCH: "razorpayOrderId is not the Razorpay order start-payment kept for this order " +
        "(or the payment is not for it)",
      PAYMENT_NOT_CAPTURED: "the payment is neither captured nor authorized (failed, refunded); details " +
        "give its status",
    },
  },
  {
    path: "/update-order-status",
    method: "post",
    operationId: "updateOrderStatus",
    summary: "Move an order through its lifecycle",
    description: "The seller's back office: one move of one order (the same status again is a no-op), " +
      "recorded in its history, the buyer e-mailed at paid, shipped, delivered and cancelled. Service-role " +
      "or secret key only. Name the order by `orderId`, or by `storeId` and `orderNumber`. Cancelling a " +
      "paid order makes its money due back: the answer's `refund` is the refund created.",
    access: "service",
    parameters: [],
    request: { schema: "StatusMoveRequest", required: true },
    success: ["StatusMoveResponse"],
    successDescription: "The order has the status (`changed` says whether this call moved it).",
    errors: [..._BODY_ERRORS, "UNAUTHORIZED", "ORDER_NOT_FOUND", "INVALID_TRANSITION"],
    errorWhen: {
      ..._BODY_WHEN,
      UNAUTHORIZED: "no service-role or secret key",
      ORDER_NOT_FOUND: "no order with this id, or this number in this store",
      INVALID_TRANSITION: "the lifecycle does not allow this move; details list the allowed ones",
    },
  },
  {
    path: "/payment-webhook",
    method: "post",
    operationId: "paymentWebhook",
    summary: "Receive Razorpay's payment events",
    description: "No key: the request is authentic when X-Razorpay-Signature is the hex HMAC-SHA256 of the " +
      "raw body with the webhook secret. `payment.captured` and `order.paid` confirm a payment of the order " +
      "in the payment's `notes.orderId` (else the order whose Razorpay order it paid); `refund.processed` " +
      "and `refund.failed` settle one of our refunds; other events are acknowledged and ignored. A repeated " +
      "event id answers what the first decided.",
    access: "none",
    parameters: [
      {
        name: "X-Razorpay-Signature",
        in: "header",
        required: true,
        description: "Hex HMAC-SHA256 of the raw body keyed with RAZORPAY_WEBHOOK_SECRET.",
        schema: { type: "string" },
      },
      {
        name: "x-razorpay-event-id",
        in: "header",
        required: true,
        description: "The event's id, the same on every retry of it.",
        schema: { type: "string", minLength: 1, maxLength: 255 },
      },
    ],
    request: { schema: "RazorpayEvent", required: true },
    success: ["WebhookConfirmationResponse", "WebhookRefundResponse", "WebhookIgnoredResponse"],
    successDescription: "The event was recorded (or ignored); `outcome` says what it did to the order, " +
      "`refundStatus` what it did to a refund.",
    errors: [..._BODY_ERRORS, "UNAUTHORIZED"],
    errorWhen: {
      ..._BODY_WHEN,
      UNAUTHORIZED: "the signature is missing or does not sign this body",
      INTERNAL_ERROR: _BODY_WHEN.INTERNAL_ERROR + "; also every event while RAZORPAY_WEBHOOK_SECRET is unset",
    },
  },
  {
    path: "/track-order",
    method: "get",
    operationId: "trackOrder",
    summary: "Show a guest the order of a tracking link",
    description: "What the buyer's tracking link shows: number, status, history, items, amounts and the " +
      "parcel once shipped; never contact data. No key: the link's token is the HMAC of the order id. An " +
      "unknown order, a wrong token and no token are the same 404.",
    access: "none",
    parameters: [
      {
        name: "order",
        in: "query",
        required: true,
        schema: { type: "string", format: "uuid" },
      },
      {
        name: "token",
        in: "query",
        required: true,
        description: "The tracking link's token: HMAC-SHA256 of the order id, base64url without padding.",
        schema: { type: "string", pattern: "^[A-Za-z0-9_-]{43}$" },
      },
    ],
    success: ["TrackOrderResponse"],
    successDescription: "The order (`Cache-Control: no-store`).",
    errors: ["ORDER_NOT_FOUND", "INTERNAL_ERROR"],
    errorWhen: {
      ORDER_NOT_FOUND: "no order matches this link (no details)",
      INTERNAL_ERROR: _BODY_WHEN.INTERNAL_ERROR,
    },
  },
  {
    path: "/outbox-drain",
    method: "post",
    operationId: "drainOutbox",
    summary: "Send the e-mails that are due",
    description: "One drain run, for pg_cron every minute: cancels the orders nobody paid in time, issues " +
      "the refunds that are due through Razorpay (adopting one Razorpay holds under the refund's receipt " +
      "before creating one), reports failed refunds, purges expired idempotency keys and " +
      "rate-limit windows, then sends what is due (each request's e-mails read from their order right " +
      "before it) until its budget (OUTBOX_DRAIN_BUDGET_MS, default 40 s) runs out, and reports dead " +
      "e-mails last, answering within that budget plus one send's time-out (EMAIL_SEND_TIMEOUT_MS, default " +
      "10 s; the two at most 50 s) and its last database calls. Service-role or secret key only. An empty " +
      "body is the defaults.",
    access: "service",
    parameters: [],
    request: { schema: "DrainRequest", required: false },
    success: ["DrainResponse"],
    successDescription: "What the run did. No address, no error text.",
    errors: [..._BODY_ERRORS, "UNAUTHORIZED"],
    errorWhen: {
      ..._BODY_WHEN,
      UNAUTHORIZED: "no service-role or secret key",
      INTERNAL_ERROR: _BODY_WHEN.INTERNAL_ERROR + "; also when no mailer is configured",
    },
  },
];
