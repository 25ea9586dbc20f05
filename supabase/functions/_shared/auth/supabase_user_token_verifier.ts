/**
 * The UserTokenVerifier over supabase-js `auth.getClaims(jwt)`. For a JWT signed with an asymmetric key
 * (ES256 or RS256, with a `kid`) it checks the signature against the project's JSON Web Key Set,
 * `<SUPABASE_URL>/auth/v1/.well-known/jwks.json` (fetched once, cached for 10 minutes), and the expiry; for
 * a symmetric one (HS256, a project on the legacy JWT secret) it asks the Auth server (`/auth/v1/user`)
 * instead. Either way an invalid, expired or unverifiable token is null, never an exception.
 */
import { createClient } from "@supabase/supabase-js";
import type { UserTokenVerifier } from "./signed_in_buyer.ts";

/** How long a verification may take before the order goes ahead as a guest order (ms). */
export const USER_TOKEN_TIMEOUT_MS = 2_000;

/** Options of {@linkcode supabaseUserTokenVerifier}. */
export interface UserTokenVerifierOptions {
  /** Past this, the token counts as unverified (default {@linkcode USER_TOKEN_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
}

/** A verifier of the project at `url`; `apiKey` is sent to the Auth endpoints as Supabase's gateway needs. */
export function supabaseUserTokenVerifier(
  url: string,
  apiKey: string,
  options: UserTokenVerifierOptions = {},
): UserTokenVerifier {
  const timeoutMs = options.timeoutMs ?? USER_TOKEN_TIMEOUT_MS;
  const baseFetch = options.fetch ?? globalThis.fetch;
  // one client for the process: the key set it fetched stays cached across requests. Made on the first
  // signed-in order, so that a cold start (and a process that only sees guest orders) builds none.
  let client: ReturnType<typeof createClient> | undefined;
  const authClient = () =>
    client ??= createClient(url, apiKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: {
        fetch: (input, init) => baseFetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
      },
    });
  return async (jwt) => {
    try {
      const { data, error } = await authClient().auth.getClaims(jwt);
      return error || !data ? null : data.claims as Record<string, unknown>;
    } catch {
      // a payload that is no JSON is thrown rather than returned by getClaims
      return null;
    }
  };
}
