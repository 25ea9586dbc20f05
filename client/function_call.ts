/**
 * One function call through supabase-js `functions.invoke`, its answer as a value: the 200 body when it is
 * the function's, else the failure's code, message, details, Retry-After and request id. supabase-js reports
 * a non-2xx answer as an error whose message says only "Edge Function returned a non-2xx status code", with
 * the body in `error.context`, a Response that can be read once: this reads it.
 */
import type { ClientErrorCode } from "./order_types.ts";

/** What the calls need of a supabase-js client: `SupabaseClient` fits. */
export interface FunctionsInvoker {
  functions: {
    invoke(
      functionName: string,
      options: { body: object; headers: Record<string, string>; signal?: AbortSignal },
    ): Promise<{ data: unknown; error: unknown; response?: Response }>;
  };
}

/** A failure's fields, whatever the function; `code` one of the function's codes or the client's own. */
export interface CallFailure {
  ok: false;
  /** The HTTP status; 0 for NETWORK_ERROR. */
  status: number;
  code: string;
  /** For developers and logs, not for buyers. */
  message: string;
  details: unknown;
  /** Seconds to wait, from Retry-After (RATE_LIMITED); null without one. */
  retryAfter: number | null;
  /** The answer's x-request-id: quote it when reporting a problem. */
  requestId: string | null;
}

/** The function's 200 body, with the answer it came in. */
export interface CallSuccess<T> {
  ok: true;
  data: T;
  response: Response | undefined;
  requestId: string | null;
}

/** Calls `name` with `body`; every answer, and the lack of one, resolves to a value. */
export async function callFunction<T>(
  supabase: FunctionsInvoker,
  name: string,
  body: object,
  options: {
    headers?: Record<string, string>;
    signal?: AbortSignal;
    knownCodes: ReadonlySet<string>;
    isSuccess: (data: unknown) => data is T;
  },
): Promise<CallSuccess<T> | CallFailure> {
  let result: { data: unknown; error: unknown; response?: Response };
  try {
    result = await supabase.functions.invoke(name, {
      body,
      headers: options.headers ?? {},
      signal: options.signal,
    });
  } catch (error) {
    // supabase-js returns its errors; a throw is a broken fetch or client: no answer either way
    return _failure("NETWORK_ERROR", 0, _messageOf(error), null);
  }
  const { data, error, response } = result;
  if (!error) {
    if (!options.isSuccess(data)) {
      return _failure("UNEXPECTED_RESPONSE", response?.status ?? 200, `not ${name}'s answer`, response);
    }
    return { ok: true, data, response, requestId: response?.headers.get("x-request-id") ?? null };
  }
  const errorName = (error as { name?: unknown }).name;
  const context = (error as { context?: unknown }).context;
  if (errorName === "FunctionsHttpError" && isResponseLike(context)) {
    return await _httpFailure(context, options.knownCodes);
  }
  if (errorName === "FunctionsRelayError" && isResponseLike(context)) {
    return _failure(
      "UNEXPECTED_RESPONSE",
      context.status,
      "the gateway could not reach the function",
      context,
    );
  }
  return _failure("NETWORK_ERROR", 0, _messageOf((context as Error | undefined) ?? error), null);
}

/**
 * Whether `value` is an HTTP answer, judged by its shape (a numeric status, headers with `get`, `text` and
 * `json`) rather than its class: supabase-js hands back whatever its `fetch` made, and another fetch
 * (undici's, a polyfill's, `createClient(url, key, { global: { fetch } })`) makes a Response of another
 * class than this realm's `Response`.
 */
export function isResponseLike(value: unknown): value is Response {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as {
    status?: unknown;
    headers?: { get?: unknown } | null;
    text?: unknown;
    json?: unknown;
  };
  return typeof candidate.status === "number" && typeof candidate.headers?.get === "function" &&
    typeof candidate.text === "function" && typeof candidate.json === "function";
}

async function _httpFailure(response: Response, knownCodes: ReadonlySet<string>): Promise<CallFailure> {
  let body: unknown;
  try {
    // the Response of error.context can be read once: here, and only here
    body = JSON.parse(await response.text());
  } catch {
    return _failure("UNEXPECTED_RESPONSE", response.status, "the answer is not JSON", response);
  }
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (typeof error?.code !== "string" || typeof error.message !== "string") {
    return _failure("UNEXPECTED_RESPONSE", response.status, "the answer is not an error body", response);
  }
  if (!knownCodes.has(error.code)) {
    // a code outside the union (a newer function than this client): no details this client could type
    return _failure(
      "UNEXPECTED_RESPONSE",
      response.status,
      `unknown code ${error.code}: ${error.message}`,
      response,
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
  };
}

function _failure(
  code: ClientErrorCode,
  status: number,
  message: string,
  response: Response | null | undefined,
): CallFailure {
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
  };
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const _messageOf = messageOf;
