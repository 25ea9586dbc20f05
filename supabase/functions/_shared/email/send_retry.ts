/** How a sender retries one provider call: a few tries, exponential back-off, and a 429's `retry-after`. */
import type { SendResult } from "./mailer.ts";

/** How often and how long a sender tries before it leaves a row to the next drain. */
export interface RetryPolicy {
  /** Tries per message (default 3). */
  tries: number;
  /** First back-off; it doubles with each try (default 500 ms). */
  baseDelayMs: number;
  /** A wait longer than this (a long `retry-after`) is not waited for: the row is left failed (default 10 s). */
  maxDelayMs: number;
}

/** The request path's policy; the drain allows waits up to a minute. */
export const DEFAULT_RETRY: RetryPolicy = { tries: 3, baseDelayMs: 500, maxDelayMs: 10_000 };

/** The policy, a sleep and a log line writer: what the retry loop needs. */
export interface SendContext {
  retry: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
  log: (event: Record<string, unknown>) => void;
}

/** The last answer of a retried call and how many tries it took. */
export interface SendOutcome {
  result: SendResult;
  attempts: number;
}

/** Calls `send` until it succeeds, fails for good, runs out of tries, or would wait too long. */
export async function withRetry(send: () => Promise<SendResult>, ctx: SendContext): Promise<SendOutcome> {
  for (let attempt = 1;; attempt++) {
    let result: SendResult;
    try {
      result = await send();
    } catch (error) {
      result = { ok: false, error: `mailer threw: ${_describe(error)}`, retryable: true };
    }
    if (result.ok || !result.retryable || attempt >= ctx.retry.tries) return { result, attempts: attempt };
    const delay = retryDelay([result], attempt, ctx.retry);
    if (delay === null) return { result, attempts: attempt };
    await ctx.sleep(delay);
  }
}

/** The wait before the next try: the longest `retry-after` given, else exponential; null when too long. */
export function retryDelay(failures: SendResult[], attempt: number, policy: RetryPolicy): number | null {
  const hinted = failures.flatMap((f) => !f.ok && f.retryAfterMs !== undefined ? [f.retryAfterMs] : []);
  const delay = hinted.length > 0 ? Math.max(...hinted) : policy.baseDelayMs * 2 ** (attempt - 1);
  return delay > policy.maxDelayMs ? null : delay;
}

function _describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
