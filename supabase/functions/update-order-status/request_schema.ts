/**
 * The status-move request: `{ orderId | (storeId, orderNumber), status, note?, carrier?, trackingNumber?,
 * trackingUrl? }`. Strict: an unknown field is refused. Free text follows the one text rule
 * (`text_rules.ts`), the tracking link is an http(s) URL stored as its serialisation. Everything after
 * `parseStatusMoveRequest` sees only the parsed type.
 */
import { z } from "../_shared/zod.ts";
import { type FieldIssue, OrderError } from "../_shared/errors.ts";
import { ORDER_STATUSES } from "../_shared/orders/order_status.ts";
import type { StatusMove } from "../_shared/orders/status_move_store.ts";
import { checkFreeText, checkHttpUrl, type FreeTextResult } from "../_shared/orders/text_rules.ts";
import { freeTextKeywords, httpUrlKeywords } from "../_shared/orders/wire_patterns.ts";

/** The longest note (a cancellation's reason), carrier name and tracking number. */
export const MAX_NOTE_LENGTH = 500;
export const MAX_CARRIER_LENGTH = 100;
export const MAX_TRACKING_NUMBER_LENGTH = 100;
export const MAX_TRACKING_URL_LENGTH = 2048;

/** A type-error message that says "is required" when the field is missing. */
function _expected(field: string, what: string) {
  return (issue: { input: unknown }) =>
    issue.input === undefined ? `${field} is required` : `${field} must be ${what}`;
}

/**
 * An optional string field checked by one of the text rule's functions; null is the same as absent.
 * `described` is the rule as JSON Schema says it, for the API description (wire_patterns.ts).
 */
function _ruled(field: string, check: (raw: string) => FreeTextResult, described: Record<string, unknown>) {
  return z.string({ error: _expected(field, "a string") }).transform((raw, ctx) => {
    const result = check(raw);
    if (result.ok) return result.text;
    ctx.addIssue({ code: "custom", message: `${field} ${result.problem}` });
    return z.NEVER;
  }).meta(described).nullish().transform((value) => value ?? null);
}

/**
 * What the refinement below checks, as JSON Schema: the order is named by orderId or by storeId and
 * orderNumber, never both; cancelling takes a note (the reason); the parcel's fields go only with shipped.
 */
const _MOVE_RULES = {
  oneOf: [
    { title: "by orderId", required: ["orderId"], properties: { storeId: false, orderNumber: false } },
    {
      title: "by storeId and orderNumber",
      required: ["storeId", "orderNumber"],
      properties: { orderId: false },
    },
  ],
  allOf: [
    {
      if: { properties: { status: { const: "cancelled" } }, required: ["status"] },
      then: { required: ["note"], properties: { note: { type: "string" } } },
    },
    {
      if: { properties: { status: { not: { const: "shipped" } } }, required: ["status"] },
      then: {
        properties: {
          carrier: { type: "null" },
          trackingNumber: { type: "null" },
          trackingUrl: { type: "null" },
        },
      },
    },
  ],
};

const _uuid = (field: string) => z.guid({ error: _expected(field, "a UUID") }).optional();

/** The request body schema (zod); `parseStatusMoveRequest` is the way to use it. */
export const StatusMoveRequestSchema = z.strictObject({
  orderId: _uuid("orderId"),
  storeId: _uuid("storeId"),
  orderNumber: z.string({ error: _expected("orderNumber", "a string") })
    .regex(/^ORD-\d{4}-\d{6,}$/, { error: "orderNumber must look like ORD-2026-000001" })
    .optional(),
  status: z.enum(ORDER_STATUSES, { error: _expected("status", `one of ${ORDER_STATUSES.join(", ")}`) }),
  note: _ruled("note", (raw) => checkFreeText(raw, MAX_NOTE_LENGTH), freeTextKeywords(MAX_NOTE_LENGTH)),
  carrier: _ruled(
    "carrier",
    (raw) => checkFreeText(raw, MAX_CARRIER_LENGTH),
    freeTextKeywords(MAX_CARRIER_LENGTH),
  ),
  trackingNumber: _ruled(
    "trackingNumber",
    (raw) => checkFreeText(raw, MAX_TRACKING_NUMBER_LENGTH),
    freeTextKeywords(MAX_TRACKING_NUMBER_LENGTH),
  ),
  trackingUrl: _ruled("trackingUrl", (raw) => checkHttpUrl(raw, MAX_TRACKING_URL_LENGTH), {
    description: "an absolute http(s) URL without user name or password",
    ...httpUrlKeywords(MAX_TRACKING_URL_LENGTH),
  }),
}, { error: "the body must be a JSON object" })
  .superRefine((move, ctx) => {
    const byNumber = move.storeId !== undefined || move.orderNumber !== undefined;
    if (move.orderId !== undefined && byNumber) {
      ctx.addIssue({
        code: "custom",
        path: ["orderId"],
        message: "give orderId, or storeId and orderNumber, not both",
      });
    } else if (move.orderId === undefined) {
      for (const field of ["storeId", "orderNumber"] as const) {
        if (move[field] === undefined) {
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: `${field} is required without orderId`,
          });
        }
      }
    }
    if (move.status === "cancelled" && move.note === null) {
      ctx.addIssue({ code: "custom", path: ["note"], message: "note is required to cancel: the reason" });
    }
    if (move.status !== "shipped") {
      for (const field of ["carrier", "trackingNumber", "trackingUrl"] as const) {
        if (move[field] !== null) {
          ctx.addIssue({ code: "custom", path: [field], message: `${field} is only allowed with shipped` });
        }
      }
    }
  }).meta(_MOVE_RULES);

/** Parses a JSON value into a {@linkcode StatusMove}, or throws VALIDATION_FAILED with every issue. */
export function parseStatusMoveRequest(body: unknown): StatusMove {
  const result = StatusMoveRequestSchema.safeParse(body);
  if (!result.success) {
    throw new OrderError("VALIDATION_FAILED", "The request body is invalid", {
      details: result.error.issues.flatMap((issue): FieldIssue[] =>
        issue.code === "unrecognized_keys"
          ? issue.keys.map((key) => ({ path: [...issue.path, key].join("."), message: "unknown field" }))
          : [{ path: issue.path.join("."), message: issue.message }]
      ),
    });
  }
  const move = result.data;
  return {
    order: move.orderId !== undefined
      ? { orderId: move.orderId.toLowerCase() }
      : { storeId: move.storeId!.toLowerCase(), orderNumber: move.orderNumber! },
    status: move.status,
    note: move.note,
    carrier: move.carrier,
    trackingNumber: move.trackingNumber,
    trackingUrl: move.trackingUrl,
  };
}
