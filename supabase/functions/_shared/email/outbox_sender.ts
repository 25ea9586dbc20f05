/**
 * Sends outbox e-mails. Two paths share it: `sendOrderEmails` right after an order is answered (inside
 * `EdgeRuntime.waitUntil`), and `drainOutbox` for whatever that missed (`deno task outbox`). Either way a
 * row ends `sent` with the provider's id or `failed` with the error and its attempts; nothing is dropped.
 */
import type { EmailOutbox } from "./email_outbox.ts";
import { type EmailMessage, type RenderOptions, renderOrderEmail } from "./email_templates.ts";
import { type Mailer, orderEmailIdempotencyKey, type SendResult } from "./mailer.ts";
import type { EmailResult, OutboxEmail } from "./order_email.ts";

/** How often and how long a sender tries before it leaves a row to the next drain. */
export interface RetryPolicy {
  /** Tries per message (default 3). */
  tries: number;
  /** First back-off; it doubles with each try (default 500 ms). */
  baseDelayMs: number;
  /** A wait longer than this (a long `retry-after`) is not waited for: the row is left failed (default 10 s). */
  maxDelayMs: number;
}

/** What the senders need; `sleep` and `log` are injectable so tests neither wait nor print. */
export interface OutboxSenderDeps {
  mailer: Mailer;
  outbox: EmailOutbox;
  render: RenderOptions;
  sleep?: (ms: number) => Promise<void>;
  /** One event per call, written as one JSON line; never given an address, phone or key. */
  log?: (event: Record<string, unknown>) => void;
  retry?: Partial<RetryPolicy>;
}

/** What a sender did. */
export interface SendSummary {
  claimed: number;
  sent: number;
  failed: number;
}

const _DEFAULT_RETRY: RetryPolicy = { tries: 3, baseDelayMs: 500, maxDelayMs: 10_000 };

/**
 * Sends the e-mails `create_order` claimed for one order (status `sending`), each with up to `tries`
 * tries and exponential back-off (a 429's `retry-after` wins), then records all results in one call.
 * Never throws: a failure to record is logged, and the drain picks the rows up once their claim is stale.
 */
export async function sendOrderEmails(emails: OutboxEmail[], deps: OutboxSenderDeps): Promise<SendSummary> {
  const ctx = _context(deps);
  const outcomes = await Promise.all(emails.map(async (email) => {
    const message = _render(email, deps.render);
    if ("error" in message) return { email, result: message.error, attempts: 1 };
    const key = orderEmailIdempotencyKey(email);
    return { email, ...await _withRetry(() => deps.mailer.send(message, key), ctx) };
  }));
  const results = outcomes.map(({ email, result, attempts }) => _emailResult(email, result, attempts, ctx));
  try {
    await deps.outbox.recordResults(results);
  } catch (error) {
    ctx.log({ event: "email.record_failed", outboxIds: emails.map((e) => e.id), error: _describe(error) });
  }
  return _summary(emails.length, results);
}

/** Options of {@linkcode drainOutbox}. */
export interface DrainOptions {
  /** Rows per claim and per provider batch (default 100, Resend's batch limit). */
  batchSize?: number;
  /** Pending and failed rows are due this long after they were written or last tried (default 60 s). */
  minAgeSeconds?: number;
  /** A `sending` row whose claim is this old is due again (default 300 s). */
  staleAfterSeconds?: number;
}

/**
 * The recovery path: claims due rows in batches, sends them, records the results, and repeats until a
 * claim comes back short or a whole round sent nothing (the provider is down: the next run tries again).
 *
 * A row claimed for the first time (`attempts` 0) is a stale claim of a sender that died, possibly after
 * the provider accepted it: it goes alone with its own idempotency key, so the provider drops a duplicate.
 * Rows that failed before go through the batch endpoint, whose idempotency key covers a whole request.
 */
export async function drainOutbox(deps: OutboxSenderDeps, options: DrainOptions = {}): Promise<SendSummary> {
  const ctx = _context({ ...deps, retry: { maxDelayMs: 60_000, ...deps.retry } });
  const limit = Math.min(Math.max(options.batchSize ?? 100, 1), 100);
  const claim = {
    limit,
    minAgeSeconds: options.minAgeSeconds ?? 60,
    staleAfterSeconds: options.staleAfterSeconds ?? 300,
  };
  const total: SendSummary = { claimed: 0, sent: 0, failed: 0 };
  while (true) {
    const rows = await deps.outbox.claimDue(claim);
    if (rows.length === 0) break;
    const results = await _sendRound(rows, deps, ctx);
    await deps.outbox.recordResults(results);
    const round = _summary(rows.length, results);
    ctx.log({ event: "email.drain_round", ...round });
    total.claimed += round.claimed;
    total.sent += round.sent;
    total.failed += round.failed;
    if (rows.length < limit || round.sent === 0) break;
  }
  return total;
}

interface _Context {
  retry: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
  log: (event: Record<string, unknown>) => void;
}

interface _Outcome {
  result: SendResult;
  attempts: number;
}

function _context(deps: OutboxSenderDeps): _Context {
  return {
    retry: { ..._DEFAULT_RETRY, ...deps.retry },
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    log: deps.log ?? ((event) => console.log(JSON.stringify({ at: new Date().toISOString(), ...event }))),
  };
}

async function _sendRound(
  rows: OutboxEmail[],
  deps: OutboxSenderDeps,
  ctx: _Context,
): Promise<EmailResult[]> {
  const outcomes = new Map<OutboxEmail, _Outcome>();
  const batch: { email: OutboxEmail; message: EmailMessage }[] = [];
  for (const email of rows) {
    const message = _render(email, deps.render);
    if ("error" in message) outcomes.set(email, { result: message.error, attempts: 1 });
    else if (email.attempts === 0) {
      outcomes.set(
        email,
        await _withRetry(() => deps.mailer.send(message, orderEmailIdempotencyKey(email)), ctx),
      );
    } else batch.push({ email, message });
  }
  let pending = batch;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const answers = await deps.mailer.sendBatch(
      pending.map(({ email, message }) => ({ message, idempotencyKey: orderEmailIdempotencyKey(email) })),
    );
    const retry: typeof pending = [];
    pending.forEach((item, i) => {
      const result = answers[i] ?? { ok: false, error: "mailer returned no result", retryable: false };
      outcomes.set(item.email, { result, attempts: attempt });
      if (!result.ok && result.retryable) retry.push(item);
    });
    const delay = _delay(answers.filter((a) => !a.ok && a.retryable), attempt, ctx.retry);
    if (retry.length === 0 || attempt >= ctx.retry.tries || delay === null) break;
    await ctx.sleep(delay);
    pending = retry;
  }
  return rows.map((email) => {
    const { result, attempts } = outcomes.get(email)!;
    return _emailResult(email, result, attempts, ctx);
  });
}

async function _withRetry(send: () => Promise<SendResult>, ctx: _Context): Promise<_Outcome> {
  for (let attempt = 1;; attempt++) {
    let result: SendResult;
    try {
      result = await send();
    } catch (error) {
      result = { ok: false, error: `mailer threw: ${_describe(error)}`, retryable: true };
    }
    if (result.ok || !result.retryable || attempt >= ctx.retry.tries) return { result, attempts: attempt };
    const delay = _delay([result], attempt, ctx.retry);
    if (delay === null) return { result, attempts: attempt };
    await ctx.sleep(delay);
  }
}

/** The wait before the next try: the longest `retry-after` given, else exponential; null when too long. */
function _delay(failures: SendResult[], attempt: number, policy: RetryPolicy): number | null {
  const hinted = failures.flatMap((f) => !f.ok && f.retryAfterMs !== undefined ? [f.retryAfterMs] : []);
  const delay = hinted.length > 0 ? Math.max(...hinted) : policy.baseDelayMs * 2 ** (attempt - 1);
  return delay > policy.maxDelayMs ? null : delay;
}

function _render(email: OutboxEmail, options: RenderOptions): EmailMessage | { error: SendResult } {
  try {
    return renderOrderEmail(email, options);
  } catch (error) {
    return { error: { ok: false, error: `render failed: ${_describe(error)}`, retryable: false } };
  }
}

function _emailResult(email: OutboxEmail, result: SendResult, attempts: number, ctx: _Context): EmailResult {
  const ids = { outboxId: email.id, orderId: email.orderId, kind: email.kind, attempts };
  if (result.ok) {
    ctx.log({ event: "email.sent", ...ids, providerId: result.providerId });
    return { id: email.id, attempts, providerId: result.providerId };
  }
  ctx.log({ event: "email.failed", ...ids, retryable: result.retryable, error: _redact(result.error) });
  return { id: email.id, attempts, error: result.error };
}

function _summary(claimed: number, results: EmailResult[]): SendSummary {
  const sent = results.filter((r) => "providerId" in r).length;
  return { claimed, sent, failed: results.length - sent };
}

function _describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Provider errors may quote an address; a log line must not. */
function _redact(text: string): string {
  return text.replace(/[^\s<>"'`,;:()]+@[^\s<>"'`,;:()]+/g, "[address]").slice(0, 500);
}
