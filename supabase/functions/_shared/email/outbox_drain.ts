/**
 * One drain run, the single implementation behind the outbox-drain function (every minute from pg_cron on
 * Supabase) and `deno task outbox` (locally). The run has a budget (OUTBOX_DRAIN_BUDGET_MS): it cancels the
 * orders nobody paid in time and sends their buyers' cancelled e-mails (in batches, as the backlog goes),
 * issues the refunds that are due through the payment gateway and sends the buyers' refund e-mails, reports
 * the failed refunds, purges expired idempotency keys and rate-limit windows, sends what is due until the
 * budget runs out, at the provider's pace, and then reports the dead rows, those of its own sends included;
 * every request ends within one send's time-out after the budget (EMAIL_SEND_TIMEOUT_MS, and
 * PAYMENT_PROVIDER_TIMEOUT_MS or less for the gateway's), so the run answers within budget + time-out and its
 * last database calls (config.ts, DRAIN_CLOSING_MS). Every job takes its work from the same
 * {@linkcode RunBudget}.
 */
import { type Config, DEFAULT_EMAIL_SEND_TIMEOUT_MS, DEFAULT_OUTBOX_DRAIN_BUDGET_MS } from "../config.ts";
import type { PurgeCounts, PurgeExpiredGuards } from "../orders/order_guards.ts";
import type { CancelUnpaidOrders } from "../orders/unpaid_orders.ts";
import type { PaymentProvider } from "../payments/payment_provider.ts";
import { issueDueRefunds, type RefundIssuingReport } from "../payments/refund_issuing.ts";
import type { FailedRefunds, RefundStore } from "../payments/refunds.ts";
import { createRunBudget, type RunBudget } from "../run_budget.ts";
import type { DeadEmailReport } from "./email_outbox.ts";
import { addSummary, describeError } from "./email_results.ts";
import { MAX_BATCH_MESSAGES } from "./mailer.ts";
import type { OutboxSenderDeps } from "./outbox_sender.ts";
import { type PacedSendDeps, sendPaced } from "./paced_sends.ts";
import {
  type DrainSummary,
  emptyDrainSummary,
  newBatchesOf,
  type SendWork,
  sendWorkOf,
} from "./send_work.ts";
import { createRequestPace } from "./request_pace.ts";

export type { DrainSummary };

/** What one run may spend, from the configuration. */
export interface DrainLimits {
  /** OUTBOX_DRAIN_BUDGET_MS: the run takes no work after this (default 40 s). */
  budgetMs: number;
  /** EMAIL_SEND_TIMEOUT_MS: the longest request to the provider (default 10 s). */
  sendTimeoutMs: number;
  /** The provider's rate limit (RESEND_REQUESTS_PER_SECOND with Resend; default: none). */
  requestsPerSecond: number;
}

/** The defaults of {@linkcode DrainLimits}. */
export const DEFAULT_DRAIN_LIMITS: DrainLimits = {
  budgetMs: DEFAULT_OUTBOX_DRAIN_BUDGET_MS,
  sendTimeoutMs: DEFAULT_EMAIL_SEND_TIMEOUT_MS,
  requestsPerSecond: Infinity,
};

/**
 * The limits of the configuration: its budget and time-out, and Resend's rate when the run sends through
 * Resend (`throughResend`); another mailer (local files, a test's) is not rate-limited.
 */
export function drainLimits(
  config: Pick<Config, "outboxDrainBudgetMs" | "emailSendTimeoutMs" | "resend">,
  throughResend: boolean,
): DrainLimits {
  return {
    budgetMs: config.outboxDrainBudgetMs,
    sendTimeoutMs: config.emailSendTimeoutMs,
    requestsPerSecond: throughResend && config.resend ? config.resend.requestsPerSecond : Infinity,
  };
}

/** What a drain needs besides its senders' parts: its limits, and the clock its budget runs on. */
export interface DrainDeps extends OutboxSenderDeps {
  limits?: Partial<DrainLimits>;
  now?: () => number;
}

/** The refunds' parts of a run: their store, and the gateway they are issued through (null: none set up). */
export interface DrainRefunds {
  store: RefundStore;
  provider: PaymentProvider | null;
}

/** What a drain run needs: the senders' parts, the cancellation of unpaid orders, the refunds, the purge. */
export interface OutboxDrainDeps extends DrainDeps {
  cancelUnpaidOrders: CancelUnpaidOrders;
  purgeExpiredGuards: PurgeExpiredGuards;
  /** Absent: the run issues no refund (a drain of e-mails alone). */
  refunds?: DrainRefunds;
}

/** Options of {@linkcode drainOutbox}: the two knobs of the request and the task, and the batch size. */
export interface DrainOptions {
  /** Rows per batch request (default and most 100). */
  batchSize?: number;
  /** Pending and failed rows are due this long after they were written or last tried (default 60 s). */
  minAgeSeconds?: number;
  /** A row the request path claimed and left `sending` this long is due again (default 300 s). */
  staleAfterSeconds?: number;
}

/** What a drain run did. No address, no error text: the report is logged and kept by cron. */
export interface DrainReport {
  /**
   * The unpaid orders this run cancelled, and how many it left for a later run (a lock they need was busy), or
   * null when that step failed (logged; the next run tries again).
   */
  unpaidOrders: { cancelled: number; orderIds: string[]; skipped: number } | null;
  /** Every e-mail this run claimed, sent, failed, superseded or handed back, the cancelled orders' included. */
  emails: DrainSummary;
  /**
   * Every dead row counted, the newest listed, read after the run's sends (those it made dead included): they
   * wait for a person, never for the next run.
   */
  deadEmails: DeadEmailReport;
  /** What the run did to refunds; null when it issues none (no refunds' parts, or no gateway configured). */
  refunds: RefundIssuingReport | null;
  /** The failed refunds, the newest listed: they wait for a person (docs/operate.md, "Refunds"). */
  failedRefunds: FailedRefunds["refunds"];
  /** What the purge removed, or null when it failed (logged; the next run purges again). */
  purged: PurgeCounts | null;
}

/** How many dead rows a report lists. */
export const DEAD_EMAILS_LISTED = 20;

/** How many failed refunds a report lists. */
export const FAILED_REFUNDS_LISTED = 20;

/** A run's shared parts: its budget and pace, and the senders' parts built on them. */
export interface DrainRun {
  budget: RunBudget;
  send: PacedSendDeps;
}

/** Starts a run now: its budget, and its pace towards the provider. */
export function startDrainRun(deps: DrainDeps): DrainRun {
  const limits = { ...DEFAULT_DRAIN_LIMITS, ...deps.limits };
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const log = deps.log ??
    ((event) => console.log(JSON.stringify({ at: new Date().toISOString(), ...event })));
  const budget = createRunBudget({ budgetMs: limits.budgetMs, sendTimeoutMs: limits.sendTimeoutMs, now });
  const pace = createRequestPace({ perSecond: limits.requestsPerSecond, sleep, now });
  return {
    budget,
    send: { mailer: deps.mailer, outbox: deps.outbox, render: deps.render, log, budget, pace },
  };
}

/** Runs one drain; throws (an OrderError) only when the outbox itself cannot be reached. */
export async function runOutboxDrain(
  deps: OutboxDrainDeps,
  options: DrainOptions = {},
): Promise<DrainReport> {
  const run = startDrainRun(deps);
  const { log } = run.send;
  const emails = emptyDrainSummary();
  let unpaidOrders: DrainReport["unpaidOrders"] = null;
  let cancelledEmails: SendWork[] = [];
  try {
    const { cancelled, emails: claimed, skipped } = await deps.cancelUnpaidOrders();
    unpaidOrders = {
      cancelled: cancelled.length,
      orderIds: cancelled.map((order) => order.orderId),
      skipped: skipped.length,
    };
    if (cancelled.length > 0) log({ event: "orders.unpaid_cancelled", orderIds: unpaidOrders.orderIds });
    if (skipped.length > 0) {
      log({ event: "orders.unpaid_skipped", orderIds: skipped.map((order) => order.orderId) });
    }
    cancelledEmails = newBatchesOf(claimed, _batchLimit(run.send.mailer, options.batchSize), _newBatchKey);
  } catch (error) {
    log({ event: "orders.unpaid_cancel_failed", error: describeError(error) });
  }
  if (cancelledEmails.length > 0) {
    // the buyers of the orders just cancelled hear of it first, in batches as the backlog's e-mails go
    addSummary(emails, await sendPaced(() => Promise.resolve(cancelledEmails.splice(0)), run.send));
  }
  const { refunds, failedRefunds } = await _refunds(deps, options, run, emails);
  let purged: PurgeCounts | null = null;
  try {
    purged = await deps.purgeExpiredGuards();
  } catch (error) {
    log({ event: "housekeeping.failed", error: describeError(error) });
  }
  addSummary(emails, await drainOutbox(deps, options, run));
  // after the sends: a row this run's sends made dead is listed in this run's answer
  const deadEmails = await deps.outbox.deadEmails(DEAD_EMAILS_LISTED);
  if (deadEmails.total > 0) {
    log({ event: "email.dead", total: deadEmails.total, outboxIds: deadEmails.emails.map((e) => e.id) });
  }
  log({ event: "email.drain_run", elapsedMs: run.budget.elapsedMs(), ...emails });
  return { unpaidOrders, emails, deadEmails, refunds, failedRefunds, purged };
}

/** Rows per new batch: the most one batch request carries, or 0 when the mailer has no batch endpoint. */
function _batchLimit(mailer: DrainDeps["mailer"], batchSize = MAX_BATCH_MESSAGES): number {
  return mailer.sendBatch ? Math.min(Math.max(batchSize, 1), MAX_BATCH_MESSAGES) : 0;
}

/** A new batch's idempotency key, `outbox/batch/<uuid>` (`claim_due_emails` makes them the same way). */
function _newBatchKey(): string {
  return `outbox/batch/${crypto.randomUUID()}`;
}

/**
 * The run's refunds: issue what is due (before the e-mails' backlog, so that money is never starved by
 * mail), send the refund e-mails of those the gateway took, each alone under its own key, and list the
 * failed ones for a person.
 */
async function _refunds(
  deps: OutboxDrainDeps,
  options: DrainOptions,
  run: DrainRun,
  emails: DrainSummary,
): Promise<Pick<DrainReport, "refunds" | "failedRefunds">> {
  if (!deps.refunds) return { refunds: null, failedRefunds: [] };
  const { log } = run.send;
  let refunds: RefundIssuingReport | null = null;
  if (deps.refunds.provider) {
    const issued = await issueDueRefunds({
      refunds: deps.refunds.store,
      provider: deps.refunds.provider,
      budget: run.budget,
      log,
      minAgeSeconds: options.minAgeSeconds ?? 60,
    });
    refunds = issued.report;
    // the run's refund counts, beside email.drain_run's: issued counts what the run recorded as Razorpay's
    log({ event: "refund.drain_run", ...refunds });
    const refundEmails = sendWorkOf(issued.emails);
    if (refundEmails.length > 0) {
      addSummary(emails, await sendPaced(() => Promise.resolve(refundEmails.splice(0)), run.send));
    }
  }
  let failedRefunds: FailedRefunds["refunds"] = [];
  try {
    const failed = await deps.refunds.store.failedRefunds(FAILED_REFUNDS_LISTED);
    failedRefunds = failed.refunds;
    if (failed.total > 0) {
      log({
        event: "refund.failed_waiting",
        total: failed.total,
        refundIds: failed.refunds.map((r) => r.refundId),
      });
    }
  } catch (error) {
    log({ event: "refund.report_failed", error: describeError(error) });
  }
  return { refunds, failedRefunds };
}

/**
 * The recovery path: claims what is due, one request's worth at a time, and sends it at the provider's pace
 * until the run's budget runs out or nothing is due, each request's rows read again right before it. A row
 * that no request may have delivered goes in a batch (one request for up to 100 rows, under the batch's key);
 * a batch is only ever sent again whole, under its key; any other row that may have been delivered goes alone
 * under its own key `order/<orderId>/<kind>`, the key of every earlier try: so whatever the provider already
 * holds, it drops the copy.
 */
export async function drainOutbox(
  deps: DrainDeps,
  options: DrainOptions = {},
  run: DrainRun = startDrainRun(deps),
): Promise<DrainSummary> {
  const superseded = { count: 0 };
  const batchLimit = _batchLimit(run.send.mailer, options.batchSize);
  let claimFailed = false;
  const summary = await sendPaced(async (aloneLimit) => {
    if (claimFailed) return [];
    try {
      const claimed = await run.send.outbox.claimDue({
        batchLimit,
        aloneLimit: Math.max(1, Math.min(aloneLimit, options.batchSize ?? MAX_BATCH_MESSAGES)),
        minAgeSeconds: options.minAgeSeconds ?? 60,
        staleAfterSeconds: options.staleAfterSeconds ?? 300,
        claimMs: run.budget.claimMs(),
        runMs: Math.floor(run.budget.elapsedMs()),
      });
      if (claimed.superseded.length > 0) {
        superseded.count += claimed.superseded.length;
        run.send.log({ event: "email.superseded", emails: claimed.superseded });
      }
      return sendWorkOf(claimed.emails);
    } catch (error) {
      // the database is gone for now: what was claimed is still sent and recorded if it can be
      claimFailed = true;
      run.send.log({ event: "email.claim_failed", error: describeError(error) });
      return [];
    }
  }, run.send);
  return { ...summary, superseded: summary.superseded + superseded.count };
}
