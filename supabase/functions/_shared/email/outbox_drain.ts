/**
 * One drain run, the single implementation behind the outbox-drain function (every minute from pg_cron on
 * Supabase) and `deno task outbox` (locally): cancel the orders nobody paid in time (their buyers'
 * cancelled e-mails sent at once), send what is due, report the dead rows, then purge expired idempotency
 * keys and rate-limit windows.
 */
import type { PurgeCounts, PurgeExpiredGuards } from "../orders/order_guards.ts";
import type { CancelUnpaidOrders } from "../orders/unpaid_orders.ts";
import type { DeadEmailReport } from "./email_outbox.ts";
import {
  type DrainOptions,
  drainOutbox,
  type OutboxSenderDeps,
  sendClaimedEmails,
  type SendSummary,
} from "./outbox_sender.ts";

/** What a drain run needs: the senders' parts, the cancellation of unpaid orders and the purge. */
export interface OutboxDrainDeps extends OutboxSenderDeps {
  cancelUnpaidOrders: CancelUnpaidOrders;
  purgeExpiredGuards: PurgeExpiredGuards;
}

/** What a drain run did. No address, no error text: the report is logged and kept by cron. */
export interface DrainReport {
  /** The unpaid orders this run cancelled, or null when that step failed (logged; the next run tries again). */
  unpaidOrders: { cancelled: number; orderIds: string[] } | null;
  /** Every e-mail sent by this run, the cancelled orders' included. */
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
  let unpaidOrders: DrainReport["unpaidOrders"] = null;
  let cancelledEmails: SendSummary | null = null;
  try {
    const { cancelled, emails } = await deps.cancelUnpaidOrders();
    unpaidOrders = { cancelled: cancelled.length, orderIds: cancelled.map((order) => order.orderId) };
    if (cancelled.length > 0) log({ event: "orders.unpaid_cancelled", orderIds: unpaidOrders.orderIds });
    cancelledEmails = await sendClaimedEmails(emails, deps);
  } catch (error) {
    log({
      event: "orders.unpaid_cancel_failed",
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const drained = await drainOutbox(deps, { maxRounds: MAX_ROUNDS_PER_RUN, ...options });
  const emails = cancelledEmails ? _sum(cancelledEmails, drained) : drained;
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
  return { unpaidOrders, emails, deadEmails, purged };
}

function _sum(a: SendSummary, b: SendSummary): SendSummary {
  return {
    claimed: a.claimed + b.claimed,
    sent: a.sent + b.sent,
    failed: a.failed + b.failed,
    dead: a.dead + b.dead,
    ignored: a.ignored + b.ignored,
  };
}
