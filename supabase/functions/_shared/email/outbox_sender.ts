/**
 * Sends outbox e-mails. Two paths share it: `sendOrderEmails` right after an order is answered (inside
 * `EdgeRuntime.waitUntil`), and `drainOutbox` for whatever that missed (the outbox-drain function and
 * `deno task outbox`, through `runOutboxDrain`). Either way a row ends `sent` with the provider's id, or
 * `failed` (`dead` after its 10th failed attempt) with the error and its attempts; nothing is dropped. Each
 * result quotes the claim it was sent under, and the outbox ignores it once that claim is no longer current.
 */
import type { EmailOutbox, RecordedEmail } from "./email_outbox.ts";
import type { EmailMessage, RenderOptions } from "./email_templates.ts";
import { renderOutboxEmail, showsTrackingLink } from "./render_outbox_email.ts";
import { type Mailer, orderEmailIdempotencyKey, type SendResult } from "./mailer.ts";
import {
  DEFAULT_RETRY,
  type RetryPolicy,
  type SendContext,
  type SendOutcome,
  withRetry,
} from "./send_retry.ts";
import type { EmailResult, OutboxEmail } from "./order_email.ts";
import { orderTrackingToken } from "../orders/tracking_token.ts";

/**
 * What a sender renders e-mails with: the templates' options, and the secret it computes each order's
 * tracking token with (`{token}` in the tracking link), since the templates do no cryptography.
 */
export interface EmailRenderConfig extends Omit<RenderOptions, "trackingToken"> {
  /** ORDER_TRACKING_SECRET. */
  trackingSecret: string;
}

/** What the senders need; `sleep` and `log` are injectable so tests neither wait nor print. */
export interface OutboxSenderDeps {
  mailer: Mailer;
  outbox: EmailOutbox;
  render: EmailRenderConfig;
  sleep?: (ms: number) => Promise<void>;
  /** One event per call, written as one JSON line; never given an address, phone or key. */
  log?: (event: Record<string, unknown>) => void;
  retry?: Partial<RetryPolicy>;
}

/** What a sender did. */
export interface SendSummary {
  claimed: number;
  /** Messages the provider accepted. */
  sent: number;
  /** Messages that failed (each row `failed`, or `dead` when counted in `dead`). */
  failed: number;
  /** Rows now dead: this failure was their 10th failed send. */
  dead: number;
  /** Results the outbox ignored: their claim had gone stale and another sender had claimed the row. */
  ignored: number;
}

/**
 * Sends the e-mails `create_order` claimed for one order (status `sending`), each with up to `tries`
 * tries and exponential back-off (a 429's `retry-after` wins), then records all results in one call.
 * Never throws: a failure to record is logged, and the drain picks the rows up once their claim is stale.
 */
export async function sendOrderEmails(emails: OutboxEmail[], deps: OutboxSenderDeps): Promise<SendSummary> {
  const ctx = _context(deps);
  const outcomes = await Promise.all(emails.map(async (email) => {
    const message = await _render(email, deps.render);
    if ("error" in message) return { email, result: message.error, attempts: 1 };
    const key = orderEmailIdempotencyKey(email);
    return { email, ...await withRetry(() => deps.mailer.send(message, key), ctx) };
  }));
  const results = outcomes.map(({ email, result, attempts }) => _emailResult(email, result, attempts, ctx));
  let recorded: RecordedEmail[] | null = null;
  try {
    recorded = await deps.outbox.recordResults(results);
  } catch (error) {
    ctx.log({ event: "email.record_failed", outboxIds: emails.map((e) => e.id), error: _describe(error) });
  }
  return _summary(emails.length, results, recorded);
}

/**
 * Sends e-mails another step of the run claimed (say the cancelled e-mails of orders whose time ran out),
 * one at a time under their own keys as the drain sends, then records the results in one call. Never
 * throws: a failure to record is logged, and the drain picks the rows up once their claim is stale.
 */
export async function sendClaimedEmails(emails: OutboxEmail[], deps: OutboxSenderDeps): Promise<SendSummary> {
  if (emails.length === 0) return { claimed: 0, sent: 0, failed: 0, dead: 0, ignored: 0 };
  const ctx = _context({ ...deps, retry: { maxDelayMs: 60_000, ...deps.retry } });
  const results = await _sendRound(emails, deps, ctx);
  let recorded: RecordedEmail[] | null = null;
  try {
    recorded = await deps.outbox.recordResults(results);
  } catch (error) {
    ctx.log({ event: "email.record_failed", outboxIds: emails.map((e) => e.id), error: _describe(error) });
  }
  return _summary(emails.length, results, recorded);
}

/** Options of {@linkcode drainOutbox}. */
export interface DrainOptions {
  /** Rows per claim (default 100). */
  batchSize?: number;
  /** Pending and failed rows are due this long after they were written or last tried (default 60 s). */
  minAgeSeconds?: number;
  /** A `sending` row whose claim is this old is due again (default 300 s). */
  staleAfterSeconds?: number;
  /** Stop after this many claims, so one run fits a function's wall-clock limit (default: no limit). */
  maxRounds?: number;
}

/**
 * The recovery path: claims due rows in batches, sends them, records the results, and repeats until a
 * claim comes back short or a whole round sent nothing (the provider is down: the next run tries again).
 *
 * Every row is sent alone with its own idempotency key, `order/<orderId>/<kind>`, the key of every earlier
 * try: a sender that died, or a try the provider accepted but answered too late, leaves the provider holding
 * the message, and only the same key makes it drop the copy. Resend's batch endpoint takes one key for the
 * whole request, so a row retried in another grouping would be delivered twice.
 */
export async function drainOutbox(deps: OutboxSenderDeps, options: DrainOptions = {}): Promise<SendSummary> {
  const ctx = _context({ ...deps, retry: { maxDelayMs: 60_000, ...deps.retry } });
  const limit = Math.min(Math.max(options.batchSize ?? 100, 1), 100);
  const claim = {
    limit,
    minAgeSeconds: options.minAgeSeconds ?? 60,
    staleAfterSeconds: options.staleAfterSeconds ?? 300,
  };
  const total: SendSummary = { claimed: 0, sent: 0, failed: 0, dead: 0, ignored: 0 };
  for (let rounds = 1;; rounds++) {
    const rows = await deps.outbox.claimDue(claim);
    if (rows.length === 0) break;
    const results = await _sendRound(rows, deps, ctx);
    const round = _summary(rows.length, results, await deps.outbox.recordResults(results));
    ctx.log({ event: "email.drain_round", ...round });
    for (const key of Object.keys(total) as (keyof SendSummary)[]) total[key] += round[key];
    if (rows.length < limit || round.sent === 0 || rounds >= (options.maxRounds ?? Infinity)) break;
  }
  return total;
}

function _context(deps: OutboxSenderDeps): SendContext {
  return {
    retry: { ...DEFAULT_RETRY, ...deps.retry },
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    log: deps.log ?? ((event) => console.log(JSON.stringify({ at: new Date().toISOString(), ...event }))),
  };
}

async function _sendRound(
  rows: OutboxEmail[],
  deps: OutboxSenderDeps,
  ctx: SendContext,
): Promise<EmailResult[]> {
  const results: EmailResult[] = [];
  // one at a time, each under its own key: the provider may already hold a row whose earlier send went
  // unanswered, and only that row's key lets it drop the copy (a batch carries one key for all its rows)
  for (const email of rows) {
    const message = await _render(email, deps.render);
    const outcome: SendOutcome = "error" in message
      ? { result: message.error, attempts: 1 }
      : await withRetry(() => deps.mailer.send(message, orderEmailIdempotencyKey(email)), ctx);
    results.push(_emailResult(email, outcome.result, outcome.attempts, ctx));
  }
  return results;
}

async function _render(
  email: OutboxEmail,
  config: EmailRenderConfig,
): Promise<EmailMessage | { error: SendResult }> {
  try {
    const { trackingSecret, ...options } = config;
    // an HMAC per e-mail that shows the link, not per e-mail sent: the seller's alert has none
    const trackingToken = showsTrackingLink(email) && options.trackingUrlTemplate.includes("{token}")
      ? await orderTrackingToken(trackingSecret, email.orderId)
      : undefined;
    return renderOutboxEmail(email, { ...options, trackingToken });
  } catch (error) {
    return { error: { ok: false, error: `render failed: ${_describe(error)}`, retryable: false } };
  }
}

function _emailResult(
  email: OutboxEmail,
  result: SendResult,
  attempts: number,
  ctx: SendContext,
): EmailResult {
  const ids = { outboxId: email.id, orderId: email.orderId, kind: email.kind, attempts };
  const claim = { id: email.id, claimToken: email.claimToken, attempts };
  if (result.ok) {
    ctx.log({ event: "email.sent", ...ids, providerId: result.providerId });
    return { ...claim, providerId: result.providerId };
  }
  ctx.log({ event: "email.failed", ...ids, retryable: result.retryable, error: _redact(result.error) });
  return { ...claim, error: result.error };
}

/** Counts of one call; `recorded` is null when recording failed (the rows stay claimed until stale). */
function _summary(claimed: number, results: EmailResult[], recorded: RecordedEmail[] | null): SendSummary {
  const sent = results.filter((r) => "providerId" in r).length;
  return {
    claimed,
    sent,
    failed: results.length - sent,
    dead: recorded?.filter((row) => row.status === "dead").length ?? 0,
    ignored: recorded ? results.length - recorded.length : 0,
  };
}

function _describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Provider errors may quote an address; a log line must not. */
function _redact(text: string): string {
  return text.replace(/[^\s<>"'`,;:()]+@[^\s<>"'`,;:()]+/g, "[address]").slice(0, 500);
}
