/**
 * `createOrder(supabase, body)`: create-order through supabase-js `functions.invoke`, its answer as a value.
 * supabase-js reports a non-2xx answer as an error whose message says only "Edge Function returned a
 * non-2xx status code", with the body in `error.context`, a Response that can be read once: this reads it
 * and hands back the code, message, typed details, Retry-After and request id.
 */
import {
  type ClientErrorCode,
  CREATE_ORDER_ERROR_CODES,
  type CreatedOrder,
  type CreateOrderBody,
  type CreateOrderErrorCode,
  type ErrorDetails,
} from "./order_types.ts";

/** What `createOrder` needs of a supabase-js client: `SupabaseClient` fits. */
export interface FunctionsInvoker {
  functions: {
    invoke(
      functionName: string,
      options: { body: CreateOrderBody; headers: Record<string, string>; signal?: AbortSignal },
    ): Promise<{ data: unknown; error: unknown; response?: Response }>;
  };
}

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
  /** For developers and logs, not for buyers: see the README's table for what to show. */
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
  let result: { data: unknown; error: unknown; response?: Response };
  try {
    result = await supabase.functions.invoke("create-order", {
      body,
      headers: { "Idempotency-Key": idempotencyKey },
      signal: options.signal,
    });
  } catch (error) {
    // supabase-js returns its errors; a throw is a broken fetch or client: no answer either way
    return _failure("NETWORK_ERROR", 0, _messageOf(error), null, idempotencyKey);
  }
  const { data, error, response } = result;
  if (!error) {
    if (!_isCreatedOrder(data)) {
      return _failure(
        "UNEXPECTED_RESPONSE",
        response?.status ?? 200,
        "not create-order's answer",
        response,
        idempotencyKey,
      );
    }
    return {
      ok: true,
      order: data,
      replayed: response?.headers.get("idempotent-replayed") === "true",
      requestId: response?.headers.get("x-request-id") ?? null,
      idempotencyKey,
    };
  }
  const name = (error as { name?: unknown }).name;
  const context = (error as { context?: unknown }).context;
  if (name === "FunctionsHttpError" && context instanceof Response) {
    return await _httpFailure(context, idempotencyKey);
  }
  if (name === "FunctionsRelayError" && context instanceof Response) {
    return _failure(
      "UNEXPECTED_RESPONSE",
      context.status,
      "the gateway could not reach the function",
      context,
      idempotencyKey,
    );
  }
  return _failure(
    "NETWORK_ERROR",
    0,
    _messageOf((context as Error | undefined) ?? error),
    null,
    idempotencyKey,
  );
}

async function _httpFailure(response: Response, idempotencyKey: string): Promise<CreateOrderFailure> {
  let body: unknown;
  try {
    // the Response of error.context can be read once: here, and only here
    body = JSON.parse(await response.text());
  } catch {
    return _failure(
      "UNEXPECTED_RESPONSE",
      response.status,
      "the answer is not JSON",
      response,
      idempotencyKey,
    );
  }
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (typeof error?.code !== "string" || typeof error.message !== "string") {
    return _failure(
      "UNEXPECTED_RESPONSE",
      response.status,
      "the answer is not an error body",
      response,
      idempotencyKey,
    );
  }
  if (!_KNOWN_CODES.has(error.code)) {
    // a code outside the union (a newer function than this client): no details this client could type
    return _failure(
      "UNEXPECTED_RESPONSE",
      response.status,
      `unknown code ${error.code}: ${error.message}`,
      response,
      idempotencyKey,
    );
  }
  const retryAfter = Number(response.headers.get("retry-after"));
  return {
    ok: false,
    status: response.status,
    code: error.code,
    message: error.message,
    details: error.details,
    retryAfter: Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : null,
    requestId: response.headers.get("x-request-id"),
    idempotencyKey,
  } as CreateOrderFailure;
}

function _failure(
  code: ClientErrorCode,
  status: number,
  message: string,
  response: Response | null | undefined,
  idempotencyKey: string,
): CreateOrderFailure {
  // an answer not read is let go of, so no connection waits on it
  if (response && !response.bodyUsed) response.body?.cancel().catch(() => {});
  return {
    ok: false,
    status,
    code,
    message,
    details: undefined,
    retryAfter: null,
    requestId: response?.headers.get("x-request-id") ?? null,
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
    throw new TypeError(`createOrder: the body cannot be sent as JSON: ${_messageOf(error)}`, {
      cause: error,
    });
  }
}

function _isCreatedOrder(data: unknown): data is CreatedOrder {
  const order = data as Partial<CreatedOrder> | null;
  return order?.success === true && typeof order.orderId === "string" &&
    typeof order.orderNumber === "string" && typeof order.finalAmount === "number";
}

function _messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
