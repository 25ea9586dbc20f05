/** The caller's IP address, for rate limiting. */

/** Where the request came from, as Deno.serve reports it. */
export interface ConnectionInfo {
  remoteAddr?: { hostname?: string };
}

/**
 * The proxy's view of the client (`cf-connecting-ip`, `x-real-ip`, the first `x-forwarded-for` entry),
 * else the socket's peer. These headers are whatever the platform's proxy passes on: spoofable where no
 * proxy overwrites them, which is why the per-e-mail limit is the stronger one.
 */
export function clientIp(headers: Headers, info?: ConnectionInfo): string | null {
  const forwarded = headers.get("cf-connecting-ip") ??
    headers.get("x-real-ip") ??
    headers.get("x-forwarded-for")?.split(",")[0];
  return forwarded?.trim().slice(0, 64) || info?.remoteAddr?.hostname || null;
}
