/**
 * The role and JWT claims a request to the local PostgREST stand-in runs with, decided as Supabase does:
 * the gateway admits the request by its project key (`gateway_keys.ts`), then PostgREST takes the role from
 * the JWT in `Authorization` when that is a user's access token (verified against the local signing key:
 * role `authenticated`, its claims in `request.jwt.claims`, so `auth.uid()` is the user), and otherwise
 * from the project key. A user token that is invalid or expired is a 401, as PostgREST answers it.
 */
import { type LocalSigningKey, type TokenVerdict, verifyUserToken } from "./auth_keys.ts";
import { type KeyRoles, roleForRequest } from "./gateway_keys.ts";
import type { SqlDatabase } from "./sql_database.ts";

/** A role the stand-in runs a request as. */
export type ApiRole = "anon" | "authenticated" | "service_role";

/** The request's role and claims, or the 401 answer (PostgREST's or the gateway's body). */
export type RoleDecision =
  | { role: ApiRole; claims: Record<string, unknown> | null }
  | { status: 401; body: Record<string, unknown> };

const _BEARER = /^bearer +(\S+) *$/i;

/** Decides the role of a request with `headers`; `signingKey` verifies user access tokens (none: refused). */
export async function requestRole(
  headers: Headers,
  keys: KeyRoles,
  signingKey?: LocalSigningKey,
): Promise<RoleDecision> {
  const gateway = roleForRequest(headers, keys);
  if ("refused" in gateway) return { status: 401, body: { message: gateway.refused } };
  const bearer = _BEARER.exec(headers.get("authorization") ?? "")?.[1];
  const isProjectKey = (key: string) =>
    keys.anon.includes(key) || keys.serviceRole.includes(key) || Boolean(keys.disabled?.includes(key));
  if (!bearer || isProjectKey(bearer)) return { role: gateway.role, claims: null };

  const verdict: TokenVerdict = signingKey
    ? await verifyUserToken(signingKey, bearer)
    : { refused: "invalid" };
  if ("refused" in verdict) {
    return {
      status: 401,
      body: verdict.refused === "expired"
        ? { code: "PGRST303", message: "JWT expired", details: null, hint: null }
        : { code: "PGRST301", message: "JWT could not be verified", details: null, hint: null },
    };
  }
  const role = verdict.claims.role;
  if (role !== "authenticated" && role !== "anon") {
    return {
      status: 401,
      body: { code: "PGRST301", message: "JWT role is not an API role", details: null, hint: null },
    };
  }
  return { role, claims: verdict.claims };
}

/**
 * Runs one statement as PostgREST runs a request: in its own transaction under `role`, with the JWT's
 * `claims` in `request.jwt.claims` (set for the transaction only) when the request carried a user's token.
 */
export function queryAsRequest<T>(
  db: SqlDatabase,
  { role, claims }: { role: ApiRole; claims: Record<string, unknown> | null },
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  if (!claims) return db.queryAsRole<T>(role, text, params);
  return db.asRole(role, async (session) => {
    await session.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify(claims)]);
    return await session.query<T>(text, params);
  });
}
