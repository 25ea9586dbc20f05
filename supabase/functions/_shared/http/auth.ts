/**
 * The caller's key check (contract, Authentication). Keys are compared in constant time against every
 * configured key, so neither a match nor its position leaks through timing.
 */
import { OrderError } from "../errors.ts";

/** The project's keys, by the database role they stand for. */
export interface ApiKeys {
  /** `SUPABASE_ANON_KEY` and every `SUPABASE_PUBLISHABLE_KEYS` value: what a storefront holds. */
  public: readonly string[];
  /** `SUPABASE_SERVICE_ROLE_KEY` and every `SUPABASE_SECRET_KEYS` value: servers only. */
  service: readonly string[];
}

/** Which callers a function admits: any project key, or only a service/secret key. */
export type KeyAccess = "project" | "service";

// RFC 9110 §11.1: the scheme is case-insensitive ("bearer", "BEARER"); one or more spaces before the token
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*) *$/i;
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

function _matchesAny(candidate: string | undefined | null, keys: readonly string[]): boolean {
  if (candidate === undefined || candidate === null) return false;
  let matched = false;
  // every key is compared, match or not, so the time does not tell which key (or none) matched
  for (const key of keys) matched = timingSafeEqual(candidate, key) || matched;
  return matched;
}

/** The key in `Authorization: Bearer <key>` (any letter case of the scheme), if the header has that shape. */
export function bearerToken(headers: Headers): string | undefined {
  return BEARER.exec(headers.get("authorization") ?? "")?.[1];
}

/**
 * Throws UNAUTHORIZED unless `Authorization: Bearer` or `apikey` carries a key that `access` admits.
 * A key in `apikey` is enough whatever `Authorization` carries: supabase-js sends a signed-in buyer's JWT
 * there beside the project key.
 */
export function requireApiKey(headers: Headers, keys: ApiKeys, access: KeyAccess = "project"): void {
  const admitted = access === "service" ? keys.service : [...keys.public, ...keys.service];
  const viaBearer = _matchesAny(bearerToken(headers), admitted);
  const viaApikey = _matchesAny(headers.get("apikey"), admitted);
  if (!viaBearer && !viaApikey) {
    throw new OrderError(
      "UNAUTHORIZED",
      access === "service"
        ? "A service or secret key is required: Authorization: Bearer <key> or apikey: <key>"
        : "A valid API key is required: Authorization: Bearer <key> or apikey: <key>",
      { headers: { "WWW-Authenticate": "Bearer" } },
    );
  }
}
