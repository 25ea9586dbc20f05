/** The start-payment request: `{ orderId }`, strict (an unknown field is refused). */
import { z } from "../_shared/zod.ts";
import { validationFailed } from "../_shared/payments/request_issues.ts";

/** The request body schema (zod); `parseStartPaymentRequest` is the way to use it. */
export const StartPaymentRequestSchema = z.strictObject({
  orderId: z.guid({
    error: (issue) => issue.input === undefined ? "orderId is required" : "orderId must be a UUID",
  }).meta({ description: "the order create-order answered" }),
}, { error: "the body must be a JSON object" });

/** Parses a JSON value into the order's id (lower case), or throws VALIDATION_FAILED. */
export function parseStartPaymentRequest(body: unknown): { orderId: string } {
  const result = StartPaymentRequestSchema.safeParse(body);
  if (!result.success) throw validationFailed(result.error);
  return { orderId: result.data.orderId.toLowerCase() };
}
