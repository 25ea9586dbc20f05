/**
 * The verify-payment request: our order's id and what Razorpay Checkout's `handler` received, strict (an
 * unknown field is refused). Razorpay's ids are letters, digits and underscores (`order_…`, `pay_…`); the
 * signature is checked against them before anything else is done with them.
 */
import { z } from "../_shared/zod.ts";
import { validationFailed } from "../_shared/payments/request_issues.ts";

const _expected = (field: string, what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `${field} is required` : `${field} must be ${what}`;

const _razorpayId = (field: string, example: string) =>
  z.string({ error: _expected(field, "a string") }).regex(/^[A-Za-z0-9_]{1,100}$/, {
    error: `${field} must be a Razorpay id (letters, digits and _, at most 100)`,
  }).meta({ examples: [example] });

/** The request body schema (zod); `parseVerifyPaymentRequest` is the way to use it. */
export const VerifyPaymentRequestSchema = z.strictObject({
  orderId: z.guid({ error: _expected("orderId", "a UUID") }).meta({
    description: "the order create-order answered",
  }),
  razorpayOrderId: _razorpayId("razorpayOrderId", "order_IluGWxBm9U8zJ8").meta({
    description: "Checkout's response.razorpay_order_id: start-payment's providerOrderId",
  }),
  razorpayPaymentId: _razorpayId("razorpayPaymentId", "pay_29QQoUBi66xm2f").meta({
    description: "Checkout's response.razorpay_payment_id",
  }),
  razorpaySignature: z.string({ error: _expected("razorpaySignature", "a string") }).min(1, {
    error: "razorpaySignature is required",
  }).max(256, { error: "razorpaySignature must be at most 256 characters" }).meta({
    description: "Checkout's response.razorpay_signature: hex HMAC-SHA256 of `<order id>|<payment id>`",
  }),
}, { error: "the body must be a JSON object" });

/** A validated verify-payment request. */
export type VerifyPaymentRequest = z.infer<typeof VerifyPaymentRequestSchema>;

/** Parses a JSON value into a {@linkcode VerifyPaymentRequest}, or throws VALIDATION_FAILED. */
export function parseVerifyPaymentRequest(body: unknown): VerifyPaymentRequest {
  const result = VerifyPaymentRequestSchema.safeParse(body);
  if (!result.success) throw validationFailed(result.error);
  return { ...result.data, orderId: result.data.orderId.toLowerCase() };
}
