/**
 * The caller's key check (contract, Authentication). Keys are compared in constant time against every
 * configured key, so neither a match nor its position leaks through timing.
 */
import { OrderError } from "../errors.ts";

/** The keys a caller may present, by where they may appear. */
export interface ApiKeys {
  /** Accepted as `Authorization: Bearer <key>`: anon, service_role, publishable and secret keys. */
  bearer: readonly string[];
  /** Accepted in the `apikey` header: only the newer publishable and secret keys (not JWTs). */
  apikeyHeader: readonly string[];
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/;
const encoder = new TextEncoder();

/**
 * Compares two strings in time that depends only on their lengths' maximum, not on where they differ.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let i = 0; i < length; i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}

function _matchesAny(candidate: string, keys: readonly string[]): boolean {
  let matched = false;
  // every key is compared, match or not, so the time does not tell which key (or none) matched
  for (const key of keys) matched = timingSafeEqual(candidate, key) || matched;
  return matched;
}

/** Throws UNAUTHORIZED unless the request carries a configured key where that key is accepted. */
export function requireApiKey(headers: Headers, keys: ApiKeys): void {
  const bearer = BEARER.exec(headers.get("authorization") ?? "")?.[1];
  const apikey = headers.get("apikey");
  const viaBearer = bearer !== undefined && _matchesAny(bearer, keys.bearer);
  const viaApikey = apikey !== null && _matchesAny(apikey, keys.apikeyHeader);
  if (!viaBearer && !viaApikey) {
    throw new OrderError("UNAUTHORIZED", "A valid API key is required: Authorization: Bearer <key>", {
      headers: { "WWW-Authenticate": "Bearer" },
    });
  }
}
