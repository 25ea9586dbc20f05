/**
 * The project's keys as the functions see them (contract, Authentication): which keys a caller may present,
 * and which one the function calls the database with. Pure: it receives the environment.
 *
 * A project that has disabled its legacy keys in the Dashboard still hands its functions the old JWTs in
 * SUPABASE_ANON_KEY and SUPABASE_SERVICE_ROLE_KEY. Its owner sets LEGACY_API_KEYS=disabled, and then
 * neither is accepted from a caller nor used for the database: a disabled key that leaked moves no order.
 */
import { z } from "./zod.ts";
import type { ApiKeys } from "./http/auth.ts";

/** A configuration problem, named for the variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** The keys of a project, read from its environment. */
export interface ProjectKeys {
  /**
   * The key the function calls the database with: SUPABASE_SECRET_KEYS.default, else (legacy keys enabled)
   * SUPABASE_SERVICE_ROLE_KEY.
   */
  serviceKey: string;
  apiKeys: ApiKeys;
  /** LEGACY_API_KEYS=disabled: SUPABASE_ANON_KEY and SUPABASE_SERVICE_ROLE_KEY are refused and unused. */
  legacyKeysDisabled: boolean;
}

const KeyMap = z.record(z.string(), z.string().min(1));

/**
 * The JSON object of keys in `env[name]` (SUPABASE_PUBLISHABLE_KEYS or SUPABASE_SECRET_KEYS), {} when unset;
 * a {@linkcode ConfigError} naming the variable when it is not such an object (a bare `sb_secret_…` key).
 */
export function readKeyMap(env: Record<string, string | undefined>, name: string): Record<string, string> {
  const raw = env[name];
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      `${name} must be a JSON object of key names to keys, e.g. {"default":"${
        name === "SUPABASE_SECRET_KEYS" ? "sb_secret_..." : "sb_publishable_..."
      }"}`,
    );
  }
  const result = KeyMap.safeParse(parsed);
  if (!result.success) {
    throw new ConfigError(`${name} must be a JSON object whose values are non-empty strings`);
  }
  return result.data;
}

// a typo ("Disabled", "off") must not leave a leaked key working while its owner believes it refused
/** Whether LEGACY_API_KEYS says the legacy keys are disabled; a {@linkcode ConfigError} for a value it does not know. */
export function legacyKeysDisabled(env: Record<string, string | undefined>): boolean {
  const value = env.LEGACY_API_KEYS;
  if (value === undefined || value === "" || value === "enabled") return false;
  if (value === "disabled") return true;
  throw new ConfigError(
    `LEGACY_API_KEYS must be "disabled" (or "enabled", or unset): got ${JSON.stringify(value)}`,
  );
}

function _present(key: string | undefined): key is string {
  return Boolean(key);
}

/** Reads the project's keys from an environment object. */
export function parseProjectKeys(env: Record<string, string | undefined>): ProjectKeys {
  const disabled = legacyKeysDisabled(env);
  const publishable = Object.values(readKeyMap(env, "SUPABASE_PUBLISHABLE_KEYS"));
  const secretMap = readKeyMap(env, "SUPABASE_SECRET_KEYS");
  const secret = Object.values(secretMap);
  const legacy = disabled
    ? { anon: undefined, serviceRole: undefined }
    : { anon: env.SUPABASE_ANON_KEY, serviceRole: env.SUPABASE_SERVICE_ROLE_KEY };
  const serviceKey = secretMap.default || legacy.serviceRole;
  if (!serviceKey) {
    throw new ConfigError(
      disabled
        ? "SUPABASE_SECRET_KEYS has no default entry: with LEGACY_API_KEYS=disabled the function calls the database with it, never SUPABASE_SERVICE_ROLE_KEY"
        : "SUPABASE_SECRET_KEYS has no default entry and SUPABASE_SERVICE_ROLE_KEY is not set: the function needs a key for the database",
    );
  }
  return {
    serviceKey,
    apiKeys: {
      public: [legacy.anon, ...publishable].filter(_present),
      service: [legacy.serviceRole, ...secret].filter(_present),
    },
    legacyKeysDisabled: disabled,
  };
}
