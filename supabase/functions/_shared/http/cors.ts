/** CORS for browser checkouts (contract, CORS). */

/**
 * Every header supabase-js may send with `functions.invoke` (its own `corsHeaders` list plus tracing
 * and retry headers), and ours.
 */
export const CORS_ALLOW_HEADERS =
  "authorization, x-client-info, apikey, content-type, idempotency-key, x-retry-count, traceparent, tracestate, baggage";

/** The response headers a storefront page may read. */
export const CORS_EXPOSE_HEADERS = "x-request-id, retry-after, idempotent-replayed";

/** How long a browser may cache the preflight, in seconds. */
export const CORS_MAX_AGE_SECONDS = 86_400;

/**
 * The `Access-Control-Allow-Origin` (and `Vary`) headers for a request's Origin, with the headers a page
 * may read.
 */
export function corsOriginHeaders(
  origin: string | null,
  allowedOrigins: readonly string[],
): Record<string, string> {
  const expose = { "Access-Control-Expose-Headers": CORS_EXPOSE_HEADERS };
  if (allowedOrigins.includes("*")) return { "Access-Control-Allow-Origin": "*", ...expose };
  if (origin !== null && allowedOrigins.includes(origin)) {
    return { "Access-Control-Allow-Origin": origin, "Vary": "Origin", ...expose };
  }
  return { "Vary": "Origin" };
}

/** The headers of a preflight answer for a function that serves `methods`. */
export function corsPreflightHeaders(
  origin: string | null,
  allowedOrigins: readonly string[],
  methods: readonly string[] = ["POST"],
): Record<string, string> {
  return {
    ...corsOriginHeaders(origin, allowedOrigins),
    "Access-Control-Allow-Methods": [...methods, "OPTIONS"].join(", "),
    "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
    "Access-Control-Max-Age": String(CORS_MAX_AGE_SECONDS),
  };
}
