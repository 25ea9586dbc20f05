/**
 * Our SQL functions' own SQLSTATEs, mapped by code (never by message text) to the contract's errors.
 */
import { type ErrorCode, type FieldIssue, internalError, OrderError } from "../errors.ts";

/** SQLSTATE -> contract code, for the failures our SQL functions and the lifecycle trigger raise on purpose. */
export const SQLSTATE_ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  OCS04: "STORE_NOT_FOUND",
  OCP04: "PRODUCT_NOT_FOUND",
  OCV04: "VARIANT_NOT_FOUND",
  OCO04: "ORDER_NOT_FOUND",
  OCV00: "VARIANT_REQUIRED",
  OC400: "PRICE_MISMATCH",
  OCA03: "VALIDATION_FAILED",
  OCN00: "VALIDATION_FAILED",
  OCI09: "IDEMPOTENCY_KEY_IN_USE",
  OCT01: "INVALID_TRANSITION",
  OCI22: "IDEMPOTENCY_KEY_REUSED",
  OCR29: "RATE_LIMITED",
  // STORE_BUSY: the store's waiter slots are taken; create-order's adapter tries again before it answers
  OCW29: "RATE_LIMITED",
  OCQ09: "OUT_OF_STOCK",
  OCY09: "ORDER_NOT_PAYABLE",
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  STORE_NOT_FOUND: "No active store with this storeId",
  PRODUCT_NOT_FOUND: "A product is unknown, inactive or of another store",
  VARIANT_NOT_FOUND: "A variant is unknown, inactive or of another product",
  ORDER_NOT_FOUND: "No order with this orderId, or with this orderNumber in this store",
  VARIANT_REQUIRED: "A product is sold in variants: choose one with variantId",
  PRICE_MISMATCH: "An item's price differs from the current catalogue price",
  VALIDATION_FAILED: "The request body is invalid",
  IDEMPOTENCY_KEY_IN_USE: "A request with this Idempotency-Key is still being processed; retry later",
  INVALID_TRANSITION:
    "The order's lifecycle does not allow this move; details.allowed lists the moves it does",
  IDEMPOTENCY_KEY_REUSED: "This Idempotency-Key was used with a different request body",
  RATE_LIMITED: "Too many orders; retry later",
  OUT_OF_STOCK: "Not enough stock is left for an item",
  ORDER_NOT_PAYABLE: "This order takes no payment through the gateway now",
};

/** create_order's SQLSTATE when K orders of the store are in the database already (store_busy_retry.ts). */
export const STORE_BUSY_SQLSTATE = "OCW29";

const STORE_BUSY_MESSAGE = "The store is taking too many orders at once; retry shortly";

/** A database error as PostgREST reports it. */
export interface DatabaseErrorLike {
  code?: string;
  message?: string;
  details?: string | null;
}

function _parseDetails(details: string | null | undefined): unknown {
  if (!details) return undefined;
  try {
    return JSON.parse(details);
  } catch {
    return undefined;
  }
}

function _isFieldIssues(value: unknown): value is FieldIssue[] {
  return Array.isArray(value) &&
    value.every((issue) => typeof issue?.path === "string" && typeof issue?.message === "string");
}

/** The details an answer carries for `sqlstate`, from the database's detail JSON; undefined for none. */
function _details(sqlstate: string, code: ErrorCode, details: unknown): unknown {
  switch (sqlstate) {
    case "OCA03":
      // the catalogue's total of this order does not fit numeric(12,2), decided after the catalogue
      return [{ path: "items", message: "the order's final amount must be at most 9999999999.99" }];
    case "OCN00":
      return _isFieldIssues(details) ? details : undefined;
    case "OCT01": {
      // { from, to, allowed } from the move functions and the lifecycle trigger alike
      const move = details as { from?: unknown; to?: unknown; allowed?: unknown } | undefined;
      return Array.isArray(move?.allowed)
        ? { from: move.from, to: move.to, allowed: move.allowed }
        : undefined;
    }
    case "OCY09": {
      // { status, paymentMethod } of the order that takes no payment now
      const order = details as { status?: unknown; paymentMethod?: unknown } | undefined;
      return typeof order?.status === "string"
        ? { status: order.status, paymentMethod: order.paymentMethod }
        : undefined;
    }
    default:
      return code === "PRICE_MISMATCH" || code === "VARIANT_REQUIRED" || code === "OUT_OF_STOCK" ||
          code.endsWith("NOT_FOUND")
        ? details
        : undefined;
  }
}

/** Maps a database error to our error: a contract failure by its SQLSTATE, anything else INTERNAL_ERROR. */
export function mapDatabaseError(error: DatabaseErrorLike): OrderError {
  const sqlstate = error.code ?? "";
  const code = SQLSTATE_ERROR_CODES[sqlstate];
  if (!code) {
    return internalError(
      Object.assign(new Error(`database error ${error.code ?? "?"}: ${error.message ?? ""}`), {
        code: error.code,
      }),
    );
  }
  const details = _parseDetails(error.details);
  if (code === "RATE_LIMITED") {
    const retryAfter = Math.max(
      1,
      Math.ceil(Number((details as { retryAfterSeconds?: number })?.retryAfterSeconds) || 60),
    );
    const storeBusy = sqlstate === STORE_BUSY_SQLSTATE;
    return new OrderError(code, storeBusy ? STORE_BUSY_MESSAGE : MESSAGES[code]!, {
      headers: { "Retry-After": String(retryAfter) },
      // kept so that a caller can tell a busy store (worth another try at once) from a client's limit
      cause: storeBusy ? error : undefined,
    });
  }
  return new OrderError(code, MESSAGES[code]!, { details: _details(sqlstate, code, details) });
}

/** Whether `error` is create_order's STORE_BUSY (OCW29), as {@linkcode mapDatabaseError} maps it. */
export function isStoreBusy(error: unknown): boolean {
  return error instanceof OrderError &&
    (error.cause as DatabaseErrorLike | undefined)?.code === STORE_BUSY_SQLSTATE;
}
