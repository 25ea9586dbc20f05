/**
 * The error body of every failure, `{ success: false, error: { code, message, details? } }`, with
 * `details` typed per code: the shapes `_shared/orders/database_errors.ts` passes on from the SQL
 * functions' detail JSON, and the field issues of the request schemas. A code without an entry here
 * answers without details.
 */
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../supabase/functions/_shared/errors.ts";
import { ERROR_EXAMPLES, errorExampleBody } from "./error_examples.ts";
import { Amount, OrderNumber, OrderStatus, Uuid } from "./response_schemas.ts";

const _Index = z.int().min(0).meta({ description: "the item's position in `items`, from 0" });

/** One failing field: its dotted path in the body (or a header's name) and the rule it broke. */
export const FieldIssue = z.strictObject({ path: z.string(), message: z.string() });

/** The details each code carries; `optional` where some answers of that code carry none. */
export const ERROR_DETAILS: Partial<Record<ErrorCode, { schema: z.ZodType; optional?: boolean }>> = {
  VALIDATION_FAILED: { schema: z.array(FieldIssue).min(1) },
  PRICE_MISMATCH: {
    schema: z.array(z.strictObject({
      index: _Index,
      productId: Uuid,
      variantId: Uuid.nullable(),
      price: Amount.meta({ description: "the current catalogue price: show it, and send it" }),
      submittedPrice: Amount,
    })).min(1).meta({ description: "every item whose price differs from the catalogue's" }),
  },
  VARIANT_REQUIRED: { schema: z.strictObject({ index: _Index, productId: Uuid }) },
  STORE_NOT_FOUND: { schema: z.strictObject({ storeId: Uuid }) },
  PRODUCT_NOT_FOUND: { schema: z.strictObject({ index: _Index, productId: Uuid }) },
  VARIANT_NOT_FOUND: { schema: z.strictObject({ index: _Index, variantId: Uuid }) },
  ORDER_NOT_FOUND: {
    // update-order-status names what it looked for; track-order says nothing, so no answer tells
    // whether an order exists
    schema: z.union([
      z.strictObject({ orderId: Uuid }),
      z.strictObject({ storeId: Uuid, orderNumber: OrderNumber }),
    ]),
    optional: true,
  },
  INVALID_TRANSITION: {
    schema: z.strictObject({ from: OrderStatus, to: OrderStatus, allowed: z.array(OrderStatus) }),
  },
  ORDER_NOT_PAYABLE: {
    schema: z.strictObject({ status: OrderStatus, paymentMethod: z.enum(["upi_direct", "gateway"]) }).meta({
      description: "where the order stands: only a gateway order in payment_pending takes a payment",
    }),
  },
  PAYMENT_NOT_CAPTURED: {
    schema: z.strictObject({ status: z.string().meta({ description: "the payment's status at Razorpay" }) }),
  },
  OUT_OF_STOCK: {
    schema: z.array(z.strictObject({
      index: _Index,
      productId: Uuid,
      variantId: Uuid.nullable(),
      available: z.int().min(0).meta({ description: "units left of the stock the item draws on" }),
    })).min(1),
  },
};

/** The component name of a code's error body, e.g. `PriceMismatchError`. */
export function errorSchemaName(code: ErrorCode): string {
  return code.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase()) +
    "Error";
}

/** The error body of `code`: its code as a constant, and its details (or none). */
export function errorBodySchema(code: ErrorCode): z.ZodType {
  const entry = ERROR_DETAILS[code];
  const error = entry
    ? z.strictObject({
      code: z.literal(code),
      message: z.string(),
      details: entry.optional ? entry.schema.optional() : entry.schema,
    })
    : z.strictObject({ code: z.literal(code), message: z.string() });
  const example = ERROR_EXAMPLES[code];
  return z.strictObject({ success: z.literal(false), error }).meta({
    description: `HTTP ${ERROR_STATUS[code]}: ${code}`,
    ...(example ? { examples: [errorExampleBody(code, example)] } : {}),
  });
}
