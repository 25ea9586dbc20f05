/**
 * One drain run, the single implementation behind the outbox-drain function (every minute from pg_cron on
 * Supabase) and `deno task outbox` (locally): send what is due, report the dead rows, then purge expired
 * idempotency keys and rate-limit windows.
 */
import type { PurgeCounts, PurgeExpiredGuards } from "../orders/order_guards.ts";
import type { DeadEmailReport } from "./email_outbox.ts";
import { type DrainOptions, drainOutbox, type OutboxSenderDeps, type SendSummary } from "./outbox_sender.ts";

/** What a drain run needs: the senders' parts and the purge. */
export interface OutboxDrainDeps extends OutboxSenderDeps {
  purgeExpiredGuards: PurgeExpiredGuards;
}

/** What a drain run did. No address, no error text: the report is logged and kept by cron. */
export interface DrainReport {
  emails: SendSummary;
  /** Every dead row counted, the newest listed: they wait for a person, never for the next run. */
  deadEmails: DeadEmailReport;
  /** What the purge removed, or null when it failed (logged; the next run purges again). */
  purged: PurgeCounts | null;
}

/** How many dead rows a report lists. */
export const DEAD_EMAILS_LISTED = 20;

/**
 * Claims per run (each at most 100 rows and one provider batch): a run of a minute's cron stays well within
 * an Edge Function's wall-clock limit; a longer backlog is the next run's.
 */
export const MAX_ROUNDS_PER_RUN = 20;

/** Runs one drain; throws (an OrderError) only when the outbox itself cannot be reached. */
export async function runOutboxDrain(
  deps: OutboxDrainDeps,
  options: DrainOptions = {},
): Promise<DrainReport> {
  const log = deps.log ??
    ((event) => console.log(JSON.stringify({ at: new Date().toISOString(), ...event })));
  const emails = await drainOutbox(deps, { maxRounds: MAX_ROUNDS_PER_RUN, ...options });
  const deadEmails = await deps.outbox.deadEmails(DEAD_EMAILS_LISTED);
  if (deadEmails.total > 0) {
    log({ event: "email.dead", total: deadEmails.total, outboxIds: deadEmails.emails.map((e) => e.id) });
  }
  let purged: PurgeCounts | null = null;
  try {
    purged = await deps.purgeExpiredGuards();
  } catch (error) {
    log({ event: "housekeeping.failed", error: error instanceof Error ? error.message : String(error) });
  }
  return { emails, deadEmails, purged };
}
