/**
 * How a sender calls the provider: every request bounded by its time-out (a request that hangs is a failed
 * send when its time-out ends, whatever the mailer does), a few tries with exponential back-off, and a
 * 429's `retry-after`.
 */
import { mayHaveDelivered, type SendFailure, type SendOptions, type SendResult } from "./mailer.ts";

/** How often and how long a sender tries before it leaves a row to the next drain. */
export interface RetryPolicy {
  /** Tries per message (default 3). */
  tries: number;
  /** First back-off; it doubles with each try (default 500 ms). */
  baseDelayMs: number;
  /** A wait longer than this (a long `retry-after`) is not waited for: the row is left failed (default 10 s). */
  maxDelayMs: number;
}

/** The request path's policy. */
export const DEFAULT_RETRY: RetryPolicy = { tries: 3, baseDelayMs: 500, maxDelayMs: 10_000 };

/** The policy, a sleep, a log line writer and each request's time-out: what the retry loop needs. */
export interface SendContext {
  retry: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
  log: (event: Record<string, unknown>) => void;
  /** EMAIL_SEND_TIMEOUT_MS. */
  sendTimeoutMs: number;
}

/** The last answer of a retried call and how many tries it took. */
export interface SendOutcome {
  /** The last answer; a failure says `maybeDelivered` when any of the tries may have delivered. */
  result: SendResult;
  attempts: number;
}

/**
 * One request to the provider, given `timeoutMs`: the mailer gets an abort signal, and when the time-out
 * ends first the answer is a failure that may have delivered (the provider may have the message), whether
 * or not the mailer honoured the signal. A mailer that throws is such a failure too.
 */
export async function boundedSend<T extends { ok: boolean }>(
  call: (options: SendOptions) => Promise<T>,
  timeoutMs: number,
): Promise<T | SendFailure> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<SendFailure>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`send timed out after ${timeoutMs} ms`));
      resolve({
        ok: false,
        error: `send timed out after ${timeoutMs} ms`,
        retryable: true,
        maybeDelivered: true,
      });
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      call({ signal: controller.signal }).catch((error): SendFailure => ({
        ok: false,
        error: `mailer threw: ${_describe(error)}`,
        retryable: true,
        maybeDelivered: true,
      })),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `send` until it succeeds, fails for good, runs out of tries, or would wait too long; before each
 * retry, after its wait, `beforeRetry` (when given) may stop it (false): the last answer is then the outcome.
 */
export async function withRetry(
  send: (options: SendOptions) => Promise<SendResult>,
  ctx: SendContext,
  beforeRetry?: () => Promise<boolean>,
): Promise<SendOutcome> {
  let maybeDelivered = false;
  for (let attempt = 1;; attempt++) {
    const result = await boundedSend(send, ctx.sendTimeoutMs);
    if (!result.ok) maybeDelivered ||= mayHaveDelivered(result);
    const outcome = { result: result.ok ? result : { ...result, maybeDelivered }, attempts: attempt };
    if (result.ok || !result.retryable || attempt >= ctx.retry.tries) return outcome;
    const delay = retryDelay([result], attempt, ctx.retry);
    if (delay === null) return outcome;
    await ctx.sleep(delay);
    if (beforeRetry && !(await beforeRetry())) return outcome;
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
