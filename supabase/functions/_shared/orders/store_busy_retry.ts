/**
 * create_order lets at most K orders of one store into the database at once (its waiter slots), so that one
 * store whose rows are held never fills the pool other stores' orders need. The K+1th order fails at once
 * with STORE_BUSY (OCW29), holding no connection; this tries it again after a short jittered pause, until
 * the deadline, and then lets the last STORE_BUSY through (429 RATE_LIMITED with Retry-After: nothing was
 * stored, and the buyer may try again).
 */
import { isStoreBusy } from "./database_errors.ts";

/** The first pause after a STORE_BUSY, in ms; each later one doubles, up to {@linkcode MAX_PAUSE_MS}. */
export const FIRST_PAUSE_MS = 20;

/** The longest pause between two tries, in ms. */
export const MAX_PAUSE_MS = 100;

/** What the retry needs from outside: the deadline, and a clock, a sleep and a random source to fake. */
export interface StoreBusyRetryOptions {
  deadline: Date;
  clock: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1); default Math.random. */
  random?: () => number;
}

/**
 * The pause before try `attempt + 1` (after `attempt` tries), in ms: half of the capped exponential step,
 * plus a random share of the other half, so that a store's waiting orders do not come back in step.
 */
export function storeBusyPause(attempt: number, random: () => number): number {
  const step = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

/**
 * Runs `call` until it does not fail with STORE_BUSY, pausing between tries without holding anything; a
 * STORE_BUSY whose next try could not start before the deadline is thrown. Any other outcome is returned
 * or thrown at once.
 */
export async function retryWhileStoreBusy<T>(
  call: () => Promise<T>,
  options: StoreBusyRetryOptions,
): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isStoreBusy(error)) throw error;
      const pause = storeBusyPause(attempt, random);
      if (options.clock().getTime() + pause >= options.deadline.getTime()) throw error;
      await sleep(pause);
    }
  }
}
