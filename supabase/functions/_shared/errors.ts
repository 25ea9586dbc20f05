/**
 * The one error model: every failure the service reports is an {@linkcode OrderError} with a code from
 * the contract's closed set. `http_errors.ts` is the only place that turns one into a response.
 */

/** Every error code of the contract, mapped to its HTTP status; a new code will not compile without one. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  PRICE_MISMATCH: 400,
  VARIANT_REQUIRED: 400,
  PAYMENT_SIGNATURE_INVALID: 400,
  UNAUTHORIZED: 401,
  STORE_NOT_FOUND: 404,
  PRODUCT_NOT_FOUND: 404,
  VARIANT_NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_KEY_IN_USE: 409,
  INVALID_TRANSITION: 409,
  OUT_OF_STOCK: 409,
  ORDER_NOT_PAYABLE: 409,
  PAYMENT_ORDER_MISMATCH: 409,
  PAYMENT_NOT_CAPTURED: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  PAYMENT_PROVIDER_ERROR: 502,
  PAYMENT_PROVIDER_NOT_CONFIGURED: 503,
} as const satisfies Record<string, number>;

/** A machine-readable error code of the contract. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** One failing field of a request: where (dotted path) and what rule it broke. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** A domain failure with a stable code, a message for people and optional structured details. */
export class OrderError extends Error {
  override name = "OrderError";
  readonly code: ErrorCode;
  readonly details?: unknown;
  /** Response headers the failure needs, e.g. `Retry-After` for RATE_LIMITED. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: unknown; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** Wraps an unexpected failure (database down, a bug) as INTERNAL_ERROR, keeping it as `cause` for the log. */
export function internalError(cause: unknown, message = "Internal error"): OrderError {
  return new OrderError("INTERNAL_ERROR", message, { cause });
}
