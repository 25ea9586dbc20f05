/**
 * The rate limits of `deno task dev`. The deployed defaults (10 orders per buyer e-mail and 120 per client
 * IP an hour) would refuse the README's curl on its 11th run for most of an hour, and the window is kept in
 * the database across restarts; a developer's loop needs room, yet a storefront should still meet a 429 it
 * can provoke. So the local stack counts per minute, with limits no loop by hand reaches.
 */

/** What `deno task dev` sets where the environment sets nothing (an empty variable counts as unset). */
export const DEV_RATE_LIMITS = {
  RATE_LIMIT_PER_EMAIL: "100",
  RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "60",
  RATE_LIMIT_PER_IP: "1000",
  RATE_LIMIT_PER_IP_WINDOW_SECONDS: "60",
} as const;

/** `env` with {@linkcode DEV_RATE_LIMITS} filling every rate-limit variable it leaves unset or empty. */
export function withDevRateLimits(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const filled: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(DEV_RATE_LIMITS)) filled[name] ||= value;
  return filled;
}

/** The line `deno task dev` prints: the limits in force, and how to change them. */
export function describeRateLimits(env: Record<string, string | undefined>): string {
  const limit = (count: string | undefined, window: string | undefined, per: string) =>
    count === "0"
      ? `off per ${per}`
      : `${count} ${count === "1" ? "order" : "orders"} per ${per} per ${window} s`;
  return `${limit(env.RATE_LIMIT_PER_EMAIL, env.RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS, "buyer e-mail")}, ` +
    `${limit(env.RATE_LIMIT_PER_IP, env.RATE_LIMIT_PER_IP_WINDOW_SECONDS, "client IP")} ` +
    "(RATE_LIMIT_PER_EMAIL=1: an e-mail's 2nd order in a minute is a 429)";
}
