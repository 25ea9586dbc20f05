/**
 * Whether the project (or local stack) at a URL takes the service key a local task calls it with, asked
 * once before the task's work: a refused key would otherwise fail every step with "Internal error" and
 * never say which key was refused. A read of `stores` (one id) is what any service key may do.
 */

/** Names the key the task sends, by where it came from in the task's own environment. */
export function describeServiceKeySource(taskEnv: Record<string, string | undefined>): string {
  if (taskEnv.SUPABASE_SECRET_KEYS) return "the default key of SUPABASE_SECRET_KEYS";
  if (taskEnv.SUPABASE_SERVICE_ROLE_KEY) return "SUPABASE_SERVICE_ROLE_KEY";
  return "the local stack's demo service-role key (this task's SUPABASE_SECRET_KEYS and SUPABASE_SERVICE_ROLE_KEY are unset)";
}

/**
 * Null when `url` takes `key`, else the sentence: which key it refused, its answer, and what to set.
 * Anything but a 401 is left to the task's own steps to report.
 */
export async function serviceKeyRefusal(
  url: string,
  key: string,
  taskEnv: Record<string, string | undefined>,
): Promise<string | null> {
  const response = await fetch(`${url}/rest/v1/stores?select=id&limit=1`, {
    headers: { apikey: key, Authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(5_000),
  });
  const body = await response.text();
  if (response.status !== 401) return null;
  let message = body;
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    // not JSON: the text itself
  }
  const fix = /legacy/i.test(message)
    ? "its legacy keys are disabled (LEGACY_API_KEYS=disabled), so set SUPABASE_SECRET_KEYS for this task " +
      `as deno task dev has it, e.g. SUPABASE_SECRET_KEYS='{"default":"sb_secret_…"}'`
    : "set SUPABASE_SECRET_KEYS (or SUPABASE_SERVICE_ROLE_KEY) to a secret key it accepts";
  return `${url} refused ${describeServiceKeySource(taskEnv)} (401 ${JSON.stringify(message)}): ${fix}`;
}
