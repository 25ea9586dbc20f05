/**
 * `createOrder(supabase, body)`: create-order through supabase-js `functions.invoke`, its answer as a value
 * (`function_call.ts` reads a failure's code, message, typed details, Retry-After and request id).
 */
import { callFunction, type FunctionsInvoker, messageOf } from "./function_call.ts";
import {
  type ClientErrorCode,
  CREATE_ORDER_ERROR_CODES,
  type CreatedOrder,
  type CreateOrderBody,
  type CreateOrderErrorCode,
  type ErrorDetails,
} from "./order_types.ts";

export type { FunctionsInvoker } from "./function_call.ts";

/** Options of {@linkcode createOrder}. */
export interface CreateOrderOptions {
  /**
   * One key per checkout attempt: send the same key with the same body to retry after a network failure,
   * a 500 or a 409 IDEMPOTENCY_KEY_IN_USE, and the first order is answered again instead of a second one
   * being made. Default: a new `crypto.randomUUID()`, returned in the result for such a retry.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** The order was stored (or, for a key already used with this body, had been: `replayed`). */
export interface OrderPlaced {
  ok: true;
  order: CreatedOrder;
  replayed: boolean;
  requestId: string | null;
  idempotencyKey: string;
}

/** A failure of code `C`: nothing was stored, except perhaps for NETWORK_ERROR (see `ClientErrorCode`). */
export interface OrderFailed<C extends CreateOrderErrorCode | ClientErrorCode> {
  ok: false;
  /** The HTTP status; 0 for NETWORK_ERROR. */
  status: number;
  code: C;
  /** For developers and logs, not for buyers: see docs/integrate.md's table for what to show. */
  message: string;
  details: ErrorDetails<C>;
  /** Seconds to wait, from Retry-After (RATE_LIMITED); null without one. */
  retryAfter: number | null;
  /** The answer's x-request-id: quote it when reporting a problem. */
  requestId: string | null;
  idempotencyKey: string;
}

/** Any failure, discriminated by `code`: `details` is typed once the code is checked. */
export type CreateOrderFailure = {
  [C in CreateOrderErrorCode | ClientErrorCode]: OrderFailed<C>;
}[CreateOrderErrorCode | ClientErrorCode];

/**
 * What {@linkcode createOrder} resolves to. It rejects only with a TypeError, for a programming error of the
 * calling page that no retry can mend (no supabase client, a body JSON cannot carry), before anything is sent.
 */
export type CreateOrderResult = OrderPlaced | CreateOrderFailure;

/**
 * Places an order with create-order, through a supabase-js client's `functions.invoke`. Every answer, and
 * the lack of one, resolves to a value; a TypeError rejects it when `supabase` has no `functions.invoke` or
 * `body` is not an object JSON can carry (a cycle, a BigInt): nothing was sent then, so it is no
 * NETWORK_ERROR, whose advice (retry with the same key, the order may exist) would be wrong.
 */
export async function createOrder(
  supabase: FunctionsInvoker,
  body: CreateOrderBody,
  options: CreateOrderOptions = {},
): Promise<CreateOrderResult> {
  _requireSendable(supabase, body);
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const result = await callFunction(supabase, "create-order", body, {
    headers: { "Idempotency-Key": idempotencyKey },
    signal: options.signal,
    knownCodes: _KNOWN_CODES,
    isSuccess: _isCreatedOrder,
  });
  if (!result.ok) return { ...result, idempotencyKey } as CreateOrderFailure;
  return {
    ok: true,
    order: result.data,
    replayed: result.response?.headers.get("idempotent-replayed") === "true",
    requestId: result.requestId,
    idempotencyKey,
  };
}

const _KNOWN_CODES: ReadonlySet<string> = new Set(CREATE_ORDER_ERROR_CODES);

/** Throws a TypeError for what only the calling page can fix: nothing has been sent yet. */
function _requireSendable(supabase: FunctionsInvoker, body: CreateOrderBody): void {
  if (typeof supabase?.functions?.invoke !== "function") {
    throw new TypeError(
      "createOrder: the first argument must be a supabase-js client (createClient(url, key))",
    );
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new TypeError("createOrder: the body must be the order as an object");
  }
  try {
    JSON.stringify(body);
  } catch (error) {
    throw new TypeError(`createOrder: the body cannot be sent as JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function _isCreatedOrder(data: unknown): data is CreatedOrder {
  const order = data as Partial<CreatedOrder> | null;
  return order?.success === true && typeof order.orderId === "string" &&
    typeof order.orderNumber === "string" && typeof order.finalAmount === "number";
}
