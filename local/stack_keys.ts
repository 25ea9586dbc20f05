/** The local stack's reading of the project's newer keys, shared by the stack and `deno task dev`'s checks. */
import { ConfigError, legacyKeysDisabled, readKeyMap } from "../supabase/functions/_shared/project_keys.ts";

/**
 * The newer keys of `env` and whether the legacy ones are disabled (`legacyDisabled` overrides
 * LEGACY_API_KEYS). Throws a {@linkcode ConfigError} naming the variable for keys the stack cannot use:
 * SUPABASE_PUBLISHABLE_KEYS or SUPABASE_SECRET_KEYS that are no JSON object of keys (a bare `sb_secret_…`),
 * or legacy keys disabled without a publishable key (no browser or curl could call the stack).
 */
export function checkStackKeys(
  env: Record<string, string | undefined>,
  legacyDisabled = legacyKeysDisabled(env),
): { publishable: string[]; secret: Record<string, string>; legacyDisabled: boolean } {
  const publishable = Object.values(readKeyMap(env, "SUPABASE_PUBLISHABLE_KEYS"));
  const secret = readKeyMap(env, "SUPABASE_SECRET_KEYS");
  if (legacyDisabled && publishable.length === 0) {
    throw new ConfigError(
      "SUPABASE_PUBLISHABLE_KEYS is not set: with LEGACY_API_KEYS=disabled the stack refuses the anon key, so " +
        `the storefront and the curl example need a publishable key, e.g. {"default":"sb_publishable_…"}`,
    );
  }
  return { publishable, secret, legacyDisabled };
}
