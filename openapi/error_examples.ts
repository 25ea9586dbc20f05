/**
 * One example body per error code, as the renderer writes it (`renderError`), for openapi.json: each
 * operation shows, under each of its error statuses, the example of every code it can answer there, and
 * each code's component schema carries its own. An operation whose answer of a code differs (track-order's
 * 404 names nothing) gives its own in `operation_examples.ts`. tests/openapi_test.ts validates every
 * example against the schema beside it.
 */
import { type ErrorCode, OrderError } from "../supabase/functions/_shared/errors.ts";
import { renderError } from "../supabase/functions/_shared/http/http_errors.ts";

/** A code's example: what it says, and the details it carries. */
export interface ErrorExample {
  summary: string;
  message: string;
  details?: unknown;
}

/** The seed's ids (supabase/seed.sql), so that an example can be sent to the local stack as it is. */
export const EXAMPLE_IDS = {
  store: "11111111-1111-4111-8111-111111111111",
  closedStore: "22222222-2222-4222-8222-222222222222",
  tea: "aaaaaaaa-0001-4000-8000-000000000001",
  chai: "aaaaaaaa-0002-4000-8000-000000000002",
  tumbler: "aaaaaaaa-0003-4000-8000-000000000003",
  largeTumbler: "bbbbbbbb-0002-4000-8000-000000000002",
  order: "0196f1c2-7a4b-7c3d-8e5f-0a1b2c3d4e5f",
} as const;

const TEA = EXAMPLE_IDS.tea;

/** Every code's example; a code without one fails tests/openapi_test.ts. */
export const ERROR_EXAMPLES: Partial<Record<ErrorCode, ErrorExample>> = {
  INVALID_JSON: { summary: "A body that is not JSON", message: "The request body must be valid JSON" },
  VALIDATION_FAILED: {
    summary: "Fields that break their rules, each by its path",
    message: "The request body is invalid",
    details: [
      {
        path: "buyerPhone",
        message: "buyerPhone must be + and the country code (not 0), then 7 to 15 digits in all",
      },
      {
        path: "shippingAddress.country",
        message: 'country must be an assigned ISO 3166-1 alpha-2 code: got "ZZ"',
      },
    ],
  },
  PRICE_MISMATCH: {
    summary: "The tea costs 349.00 now: show it, then send it",
    message: "An item's price differs from the current catalogue price",
    details: [{ index: 0, productId: TEA, variantId: null, price: 349, submittedPrice: 300 }],
  },
  VARIANT_REQUIRED: {
    summary: "The tumbler is sold in sizes: choose one",
    message: "A product is sold in variants: choose one with variantId",
    details: { index: 0, productId: EXAMPLE_IDS.tumbler },
  },
  UNAUTHORIZED: {
    summary: "No project key",
    message: "A valid API key is required: Authorization: Bearer <key> or apikey: <key>",
  },
  STORE_NOT_FOUND: {
    summary: "No active store with this id",
    message: "No active store with this storeId",
    details: { storeId: EXAMPLE_IDS.closedStore },
  },
  PRODUCT_NOT_FOUND: {
    summary: "The first item is no longer sold",
    message: "A product is unknown, inactive or of another store",
    details: { index: 0, productId: "aaaaaaaa-0004-4000-8000-000000000004" },
  },
  VARIANT_NOT_FOUND: {
    summary: "The first item's size is no longer sold",
    message: "A variant is unknown, inactive or of another product",
    details: { index: 0, variantId: "bbbbbbbb-0009-4000-8000-000000000009" },
  },
  ORDER_NOT_FOUND: {
    summary: "No order with this id",
    message: "No order with this orderId, or with this orderNumber in this store",
    details: { orderId: EXAMPLE_IDS.order },
  },
  METHOD_NOT_ALLOWED: {
    summary: "A GET where only POST is served",
    message: "Only POST, OPTIONS are allowed",
  },
  REQUEST_TIMEOUT: {
    summary: "The body was still arriving after 10 s",
    message: "The request body did not arrive within 10 s",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    summary: "A double click: the first request with this key is still running",
    message: "A request with this Idempotency-Key is still being processed; retry later",
  },
  INVALID_TRANSITION: {
    summary: "A shipped order cannot be cancelled",
    message: "The order's lifecycle does not allow this move; details.allowed lists the moves it does",
    details: { from: "shipped", to: "cancelled", allowed: ["delivered"] },
  },
  OUT_OF_STOCK: {
    summary: "Two teas are left",
    message: "Not enough stock is left for an item",
    details: [{ index: 0, productId: TEA, variantId: null, available: 2 }],
  },
  PAYLOAD_TOO_LARGE: {
    summary: "A body over 64 KiB",
    message: "The request body must be at most 65536 bytes",
  },
  IDEMPOTENCY_KEY_REUSED: {
    summary: "The key of an earlier checkout with another cart",
    message: "This Idempotency-Key was used with a different request body",
  },
  PAYMENT_SIGNATURE_INVALID: {
    summary: "A handler response whose signature is not Razorpay's",
    message: "razorpaySignature is not Razorpay's signature of this order and payment",
  },
  ORDER_NOT_PAYABLE: {
    summary: "The order was paid already",
    message: "This order does not await a payment through the gateway",
    details: { status: "paid", paymentMethod: "gateway" },
  },
  PAYMENT_ORDER_MISMATCH: {
    summary: "A Razorpay order that start-payment did not open for this order",
    message: "razorpayOrderId is not the provider order start-payment opened for this order",
  },
  PAYMENT_NOT_CAPTURED: {
    summary: "The payment failed at the bank",
    message: "The payment was neither captured nor authorized",
    details: { status: "failed" },
  },
  PAYMENT_PROVIDER_ERROR: {
    summary: "Razorpay answered an error or nothing in time: retry",
    message: "Razorpay answered an error or did not answer in time",
  },
  PAYMENT_PROVIDER_NOT_CONFIGURED: {
    summary: "The project has no Razorpay key id and secret",
    message: "Payments through the gateway are not configured",
  },
  RATE_LIMITED: { summary: "Too many orders: wait for Retry-After", message: "Too many orders; retry later" },
  INTERNAL_ERROR: { summary: "The database is down: nothing is said of why", message: "Internal error" },
};

/** The body the renderer answers for `example` of `code`. */
export function errorExampleBody(code: ErrorCode, example: ErrorExample): unknown {
  const error = new OrderError(code, example.message, { details: example.details });
  // the renderer hides a 500's message; an example shows what is answered
  return renderError(error).body;
}
