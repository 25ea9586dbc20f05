/**
 * The drain's pace towards the e-mail provider: its rate limit (Resend: 2 requests a second unless the
 * account's is higher, RESEND_REQUESTS_PER_SECOND) with a tenth to spare, and no request before a 429's
 * `retry-after` has passed. Requests are started on turns; they need not end before the next turn starts, so
 * a provider that answers slowly (or never) does not slow the pace. The spare tenth is for the requests'
 * trips: at exactly 2 a second, two requests a few milliseconds closer than 500 ms on arrival make a 429, and
 * its `retry-after` (whole seconds) costs more than the tenth.
 */

/** Options of {@linkcode createRequestPace}. */
export interface RequestPaceOptions {
  /** The provider's requests a second; Infinity: no limit (a mailer that is not rate-limited, such as files). */
  perSecond: number;
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Hands out request turns. One caller at a time. */
export interface RequestPace {
  /**
   * Waits for the next request's turn and takes it; answers false at once, taking nothing, when that turn
   * would come more than `withinMs` from now.
   */
  turn(withinMs: number): Promise<boolean>;
  /** No turn before `ms` from now (a 429's `retry-after`). */
  holdFor(ms: number): void;
  /** Turns that fit in the next `ms`, the one due now included. */
  turnsWithin(ms: number): number;
}

/** The share of the provider's rate the pace keeps to. */
export const PACE_SHARE = 0.9;

/** A pace of {@linkcode PACE_SHARE} of `perSecond` requests a second, the first turn now. */
export function createRequestPace(options: RequestPaceOptions): RequestPace {
  const now = options.now ?? Date.now;
  const intervalMs = Number.isFinite(options.perSecond) && options.perSecond > 0
    ? 1000 / (options.perSecond * PACE_SHARE)
    : 0;
  let nextAt = now();
  return {
    async turn(withinMs) {
      const deadline = now() + withinMs;
      for (;;) {
        const planned = nextAt;
        const at = Math.max(planned, now());
        if (at > deadline) return false;
        if (at > now()) await options.sleep(at - now());
        // a 429 that came back while this turn waited holds it too
        if (nextAt !== planned) continue;
        nextAt = at + intervalMs;
        return true;
      }
    },
    holdFor(ms) {
      nextAt = Math.max(nextAt, now() + ms);
    },
    turnsWithin(ms) {
      if (intervalMs === 0) return Number.MAX_SAFE_INTEGER;
      const wait = Math.max(0, nextAt - now());
      return wait > ms ? 0 : Math.floor((ms - wait) / intervalMs) + 1;
    },
  };
}
