/**
 * Who placed an order: a signed-in buyer (supabase-js sends the project key in `apikey` and the user's JWT
 * in `Authorization`), or a guest. The project key admits the request; the user JWT only says whose order
 * it is, so a JWT that is invalid, expired or cannot be verified makes a guest order, never a 401. A
 * project key in `Authorization` (the legacy anon or service-role JWT) is no user. Pure: the verifier
 * (supabase-js `auth.getClaims`, in `supabase_user_token_verifier.ts`) is handed in.
 */
import { type ApiKeys, bearerToken, timingSafeEqual } from "../http/auth.ts";

/** Verified claims of a user JWT, or null when it is invalid, expired or could not be verified. Never throws. */
export type UserTokenVerifier = (jwt: string) => Promise<Record<string, unknown> | null>;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The JWT in `Authorization: Bearer` when it may be a user's: shaped as a JWT and none of the project's
 * keys (compared with every key in constant time).
 */
export function userTokenOf(headers: Headers, keys: ApiKeys): string | undefined {
  const token = bearerToken(headers);
  if (!token || !JWT_SHAPE.test(token)) return undefined;
  let isProjectKey = false;
  for (const key of [...keys.public, ...keys.service]) {
    isProjectKey = timingSafeEqual(token, key) || isProjectKey;
  }
  return isProjectKey ? undefined : token;
}

/**
 * The user id of verified claims: `sub` when it is a UUID and the role is `authenticated` (a signed-in
 * user, anonymous sign-ins included), else null (an anon or service-role JWT, or no user at all).
 */
export function buyerUserIdOf(claims: Record<string, unknown> | null): string | null {
  if (!claims || claims.role !== "authenticated") return null;
  return typeof claims.sub === "string" && UUID.test(claims.sub) ? claims.sub.toLowerCase() : null;
}

/** The signed-in buyer's user id for a request, or null for a guest order. Never throws. */
export async function signedInBuyerId(
  headers: Headers,
  keys: ApiKeys,
  verify: UserTokenVerifier,
): Promise<string | null> {
  const token = userTokenOf(headers, keys);
  if (!token) return null;
  try {
    return buyerUserIdOf(await verify(token));
  } catch {
    return null;
  }
}
