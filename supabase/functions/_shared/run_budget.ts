/**
 * The time of one run of the outbox drain (contract, "The outbox drains within Supabase's limits"): the run
 * takes work until its budget (OUTBOX_DRAIN_BUDGET_MS) runs out, and every request it started ends within one
 * send's timeout (EMAIL_SEND_TIMEOUT_MS) after that, so the run answers within budget + timeout and its last
 * database calls: within pg_net's 55 s, which config.ts holds the two to (MAX_DRAIN_RUN_MS). Every job of the
 * run (the e-mails, the refunds) takes its work from the same budget. Pure but for the clock it is given.
 */

/** Options of {@linkcode createRunBudget}. */
export interface RunBudgetOptions {
  /** How long the run takes work. */
  budgetMs: number;
  /** The longest request to a provider. */
  sendTimeoutMs: number;
  /** The clock, in milliseconds (default Date.now). */
  now?: () => number;
}

/** One run's time, shared by every job of the run. */
export interface RunBudget {
  /** Whether the run may still start work (its budget has not run out). */
  open(): boolean;
  /** Milliseconds until the budget runs out; 0 once it has. */
  remainingMs(): number;
  /**
   * How long a provider request started now may last: one send's timeout, cut so that the request ends,
   * and its result is recorded, before the run's end.
   */
  requestTimeoutMs(): number;
  /**
   * How long a claim made now must last: until the run's end (its budget plus one send's timeout), and the
   * time its last result takes to be recorded.
   */
  claimMs(): number;
  /** Milliseconds since the run started. */
  elapsedMs(): number;
}

/** Starts a run's budget now. */
export function createRunBudget(options: RunBudgetOptions): RunBudget {
  const now = options.now ?? Date.now;
  const start = now();
  const budgetEnd = start + options.budgetMs;
  const runEnd = budgetEnd + options.sendTimeoutMs;
  // the time a result takes to be recorded after its request: a request never ends closer than this to the
  // run's end, and a claim holds this long past it, so that a result is recorded while its claim holds
  const reserveMs = Math.min(1_000, Math.floor(options.sendTimeoutMs / 4));
  return {
    open: () => now() < budgetEnd,
    remainingMs: () => Math.max(0, budgetEnd - now()),
    requestTimeoutMs: () => Math.max(0, Math.min(options.sendTimeoutMs, runEnd - reserveMs - now())),
    claimMs: () => Math.max(1, Math.ceil(runEnd + reserveMs - now())),
    elapsedMs: () => now() - start,
  };
}
