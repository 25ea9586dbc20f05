/**
 * What `deno task dev` checks before it opens its database, so that a configuration it cannot run with is
 * one sentence naming the variable and exit 2, in a second, never a stack trace: PORT (a port number, free,
 * with the next one free for the fake Razorpay), and the keys and settings the functions would refuse.
 */
import { parseConfig } from "../supabase/functions/_shared/config.ts";
import { ConfigError } from "../supabase/functions/_shared/project_keys.ts";
import { checkStackKeys } from "./stack_keys.ts";

/** A setting the local stack cannot start with; the message is the sentence `dev:` prints. */
export class DevStartupError extends Error {
  override name = "DevStartupError";
}

/**
 * The port in `raw` (PORT): a whole number from `min` to 65535, `fallback` when unset or empty. Throws a
 * {@linkcode DevStartupError} naming PORT otherwise (`abc`, `99999`, `80.5`).
 */
export function parsePort(raw: string | undefined, fallback: number, min = 0): number {
  if (raw === undefined || raw === "") return fallback;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= min && port <= 65535)) {
    throw new DevStartupError(`PORT must be a port number from ${min} to 65535: got ${JSON.stringify(raw)}`);
  }
  return port;
}

/** The stack's port and the fake Razorpay's (the next one; any free port when PORT is 0; null without the fake). */
export function devPorts(env: Record<string, string | undefined>): { port: number; fakePort: number | null } {
  const port = parsePort(env.PORT, 54321);
  if (env.RAZORPAY_API_URL) return { port, fakePort: null };
  if (port === 65535) {
    throw new DevStartupError(
      "PORT must be at most 65534: the fake Razorpay takes the next port (or set RAZORPAY_API_URL): got 65535",
    );
  }
  return { port, fakePort: port === 0 ? 0 : port + 1 };
}

/** Throws a {@linkcode DevStartupError} when something already listens on `port` of 127.0.0.1 (`what` names it). */
export function checkPortFree(port: number, what: string, variable: string): void {
  if (port === 0) return;
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new DevStartupError(
      `port ${port} of 127.0.0.1, ${what}, is in use (another deno task dev?): stop what listens there, or ` +
        `set ${variable} to a free port`,
    );
  }
}

/**
 * Checks the environment the stack and its functions would refuse (keys, LEGACY_API_KEYS, the functions'
 * settings), throwing a {@linkcode ConfigError} with the functions' own sentence.
 */
export function checkDevEnv(env: Record<string, string | undefined>): void {
  checkStackKeys(env);
  // the functions' own reading of it, with what the stack sets for them
  parseConfig({
    SUPABASE_URL: "http://127.0.0.1:54321",
    ...env,
    SUPABASE_ANON_KEY: env.SUPABASE_ANON_KEY || "local",
    SUPABASE_SERVICE_ROLE_KEY: env.SUPABASE_SERVICE_ROLE_KEY || "local",
  });
}

/** The sentence for an error `dev` refuses to start over, or null for one it does not know. */
export function describeStartupError(error: unknown): string | null {
  if (error instanceof DevStartupError || error instanceof ConfigError) return error.message;
  // taken between the check and the listen
  if (error instanceof Deno.errors.AddrInUse) {
    return "PORT or the next port (the fake Razorpay's) was taken as the stack started: set PORT to a free port";
  }
  return null;
}
