/**
 * Which database role a request to the local PostgREST stand-in runs as, decided as Supabase's gateway and
 * PostgREST decide it: by `Authorization: Bearer <key>` when that carries a project key, else by `apikey`.
 * A signed-in buyer's user JWT in `Authorization` is no project key, so the `apikey` beside it decides.
 */

/** The project's keys by the role they stand for, and the keys the gateway refuses. */
export interface KeyRoles {
  /** Anon and publishable keys: role `anon`. */
  anon: readonly string[];
  /** Service-role and secret keys: role `service_role`. */
  serviceRole: readonly string[];
  /**
   * Keys refused outright, wherever they are sent: the legacy anon and service-role JWTs of a project that
   * has disabled its legacy keys (they stay in its environment, but the gateway no longer takes them).
   */
  disabled?: readonly string[];
}

/** The outcome: a role, or the gateway's 401 message. */
export type GatewayDecision = { role: "anon" | "service_role" } | { refused: string };

const _BEARER = /^bearer +(\S+) *$/i;

/** The role for the request's headers under `keys`, or why the gateway refuses it. */
export function roleForRequest(headers: Headers, keys: KeyRoles): GatewayDecision {
  const candidates = [_BEARER.exec(headers.get("authorization") ?? "")?.[1], headers.get("apikey")];
  for (const key of candidates) {
    if (!key) continue;
    if (keys.disabled?.includes(key)) return { refused: "Legacy API keys are disabled" };
    if (keys.serviceRole.includes(key)) return { role: "service_role" };
    if (keys.anon.includes(key)) return { role: "anon" };
  }
  return { refused: "Invalid API key" };
}
