/**
 * The drain's sending: claimed rows go to the provider one request at a time on the pace's turns (a row
 * alone under its own key, or a batch, whole, under the batch's key), several requests may be under way at
 * once, each ends within the run's request time-out, and each request's result is recorded as soon as it
 * comes. Each request's rows are read again right before it (`prepareSend`): rendered from the order as it is
 * then, and not sent when the order has superseded them since their claim. A 429 puts its work back at the
 * head of the queue after its `retry-after`. When the run's budget runs out nothing new starts, and what was
 * claimed and never sent, or refused by a 429 and not tried again, is handed back (`released`): a rate limit
 * is the provider's pace, not a failure of the e-mail.
 */
import type { EmailOutbox, RecordedEmail } from "./email_outbox.ts";
import type { EmailMessage } from "./email_templates.ts";
import {
  addSummary,
  describeError,
  type EmailRenderConfig,
  emailResult,
  renderClaimedEmail,
  type SendSummary,
  summarize,
} from "./email_results.ts";
import { type Mailer, mayHaveDelivered, orderEmailIdempotencyKey, type SendResult } from "./mailer.ts";
import type { EmailResult, OutboxEmail } from "./order_email.ts";
import type { RequestPace } from "./request_pace.ts";
import { boundedSend } from "./send_retry.ts";
import type { RunBudget } from "../run_budget.ts";
import { type DrainSummary, emptyDrainSummary, rowsOf, type SendWork } from "./send_work.ts";

export type { DrainSummary, SendWork };

/** What the paced sender needs. */
export interface PacedSendDeps {
  mailer: Mailer;
  outbox: EmailOutbox;
  render: EmailRenderConfig;
  log: (event: Record<string, unknown>) => void;
  budget: RunBudget;
  pace: RequestPace;
}

/** Requests under way at once, at most: a bound for mailers without a rate limit (local files, tests). */
export const MAX_REQUESTS_UNDER_WAY = 16;

/**
 * The longest a request's rows may have been read before it leaves: rows read before their turn (so that the
 * request leaves on its turn) are read again after it when the turn came later than this (a 429's hold).
 */
export const MAX_READ_AGE_MS = 1_000;

interface _Item {
  work: SendWork;
  /**
   * The rows as read right before the request, with their messages: rendered once per reading, so that a
   * request leaves on its turn.
   */
  ready?: { email: OutboxEmail; message: EmailMessage }[];
  /** When `ready` was read (the run's elapsed milliseconds). */
  readAt?: number;
  /** Requests made for this work so far. */
  attempts: number;
  /** Whether any of them may have delivered its rows. */
  maybeDelivered: boolean;
}

/** An item's request done: its rows' results, and whether it goes back in the queue (a 429). */
interface _Sent {
  results: EmailResult[];
  again: boolean;
}

/**
 * Sends work from `more` (asked whenever the queue runs dry, with how many alone rows fit the rest of the
 * budget; it answers [] when nothing is due) until the budget runs out or nothing is left, and answers when
 * every request it started has ended and been recorded.
 */
export async function sendPaced(
  more: (aloneLimit: number) => Promise<SendWork[]>,
  deps: PacedSendDeps,
): Promise<DrainSummary> {
  const { budget, pace } = deps;
  const summary = emptyDrainSummary();
  const queue: _Item[] = [];
  const running = new Set<Promise<void>>();
  let exhausted = false;

  while (budget.open()) {
    if (queue.length === 0 && !exhausted) {
      const fit = pace.turnsWithin(budget.remainingMs()) - running.size;
      if (fit <= 0) break;
      const work = await more(Math.min(100, fit));
      if (work.length === 0) exhausted = true;
      queue.push(...work.map(_item));
      summary.claimed += work.reduce((n, w) => n + rowsOf(w).length, 0);
      continue;
    }
    if (queue.length === 0 || running.size >= MAX_REQUESTS_UNDER_WAY) {
      if (running.size === 0) break;
      await Promise.race(running);
      continue;
    }
    // read and rendered before its turn, so that the request leaves on its turn (the provider counts
    // arrivals): with the requests alone whose turns come within MAX_READ_AGE_MS, in one read
    if (!queue[0].ready) {
      const group = _unread(queue, pace.turnsWithin(MAX_READ_AGE_MS));
      const split = await _read(group, deps, summary);
      queue.unshift(...group.filter((item) => item.ready!.length > 0), ...split);
      continue;
    }
    if (!(await pace.turn(budget.remainingMs())) || !budget.open()) break;
    const item = queue.shift()!;
    if (budget.elapsedMs() - item.readAt! > MAX_READ_AGE_MS) {
      // its turn came late: the order may have moved on meanwhile
      queue.unshift(...await _read([item], deps, summary));
      if (item.ready!.length === 0) continue;
    }
    const task: Promise<void> = _sendItem(item, deps).then(async ({ results, again }) => {
      if (again) {
        // read again before it goes again: the order may move on while the run waits for the provider
        item.ready = undefined;
        queue.unshift(item);
      }
      if (results.length > 0) addSummary(summary, await _record(results, deps));
    }).finally(() => running.delete(task));
    running.add(task);
  }
  while (running.size > 0) await Promise.race(running);
  // never sent, or refused by a 429 and not tried again before the budget ran out: nothing was delivered
  const left = queue.flatMap((item) =>
    (item.ready?.map((r) => r.email) ?? rowsOf(item.work)).map((email) => _released(email, item.attempts))
  );
  if (left.length > 0) {
    const rateLimited = queue.filter((item) => item.attempts > 0).length;
    deps.log({ event: "email.released", released: left.length, rateLimitedRequests: rateLimited });
    addSummary(summary, { ...await _record(left, deps), released: left.length });
  }
  return summary;
}

function _item(work: SendWork): _Item {
  return { work, attempts: 0, maybeDelivered: false };
}

/** A row handed back unsent, after `attempts` refused requests. */
function _released(email: OutboxEmail, attempts = 0): EmailResult {
  return {
    id: email.id,
    claimToken: email.claimToken,
    released: true,
    ...(attempts > 0 ? { attempts } : {}),
  };
}

/**
 * Takes from the head of the queue the items to read together: a batch alone (its read may write its key), or
 * up to `count` requests alone (at least one, at most 100) not read yet.
 */
function _unread(queue: _Item[], count: number): _Item[] {
  if (queue[0].work.kind === "batch") return queue.splice(0, 1);
  let n = 1;
  const most = Math.max(1, Math.min(count, 100));
  while (n < most && n < queue.length && !queue[n].ready && queue[n].work.kind === "alone") n++;
  return queue.splice(0, n);
}

/**
 * Reads items' rows right before their requests, in one call, and renders them into each `item.ready` (empty:
 * nothing to send). Rows the order has superseded since are counted; rows that cannot be rendered fail alone;
 * rows the read did not answer (no longer this claim's, or held by another transaction this moment), and
 * every row when the read fails, are handed back unsent. A row that could not join a new batch (a request may
 * have delivered it) is answered as alone work of its own, for the caller to queue.
 */
async function _read(items: _Item[], deps: PacedSendDeps, summary: DrainSummary): Promise<_Item[]> {
  const rowsByItem = items.map((item) => item.ready?.map((r) => r.email) ?? rowsOf(item.work));
  const rows = rowsByItem.flat();
  const batch = items.length === 1 && items[0].work.kind === "batch" ? items[0].work : null;
  const readAt = deps.budget.elapsedMs();
  for (const item of items) {
    item.ready = [];
    item.readAt = readAt;
  }
  let read;
  try {
    read = await deps.outbox.prepareSend(rows, batch?.key);
  } catch (error) {
    // not read, so not sent: the order may have moved on, and nothing may say otherwise
    deps.log({ event: "email.read_failed", outboxIds: rows.map((r) => r.id), error: describeError(error) });
    const released = items.flatMap((item, i) =>
      rowsByItem[i].map((email) => _released(email, item.attempts))
    );
    addSummary(summary, { ...await _record(released, deps), released: released.length });
    return [];
  }
  if (read.superseded.length > 0) {
    summary.superseded += read.superseded.length;
    deps.log({ event: "email.superseded", emails: read.superseded });
  }
  const fresh = new Map(read.emails.map((email) => [email.id, email]));
  const superseded = new Set(read.superseded.map((row) => row.id));
  const results: EmailResult[] = [];
  const split: _Item[] = [];
  let gone = 0;
  for (const [i, item] of items.entries()) {
    const kept: OutboxEmail[] = [];
    for (const row of rowsByItem[i]) {
      const email = fresh.get(row.id);
      if (!email) {
        if (!superseded.has(row.id)) {
          results.push(_released(row, item.attempts));
          gone++;
        }
        continue;
      }
      const message = await renderClaimedEmail(email, deps.render);
      // a row that cannot be rendered is sent by nobody: it fails alone
      if ("error" in message) results.push(emailResult(email, message.error, 1, deps.log));
      else if (batch && email.batchKey !== batch.key) split.push(_rendered(email, message, readAt));
      else {
        kept.push(email);
        item.ready!.push({ email, message });
      }
    }
    const work = item.work;
    item.work = work.kind === "batch"
      ? { ...work, emails: kept }
      : { kind: "alone", email: kept[0] ?? work.email };
  }
  if (results.length > 0) addSummary(summary, { ...await _record(results, deps), released: gone });
  return split;
}

/** A row read and rendered, as alone work of its own. */
function _rendered(email: OutboxEmail, message: EmailMessage, readAt: number): _Item {
  return {
    work: { kind: "alone", email },
    ready: [{ email, message }],
    readAt,
    attempts: 0,
    maybeDelivered: false,
  };
}

/** Sends one item's request. */
async function _sendItem(item: _Item, deps: PacedSendDeps): Promise<_Sent> {
  const results: EmailResult[] = [];
  const ready = item.ready!;
  const timeoutMs = deps.budget.requestTimeoutMs();
  const work = item.work;
  const answer = work.kind === "batch"
    ? await boundedSend(
      (options) => deps.mailer.sendBatch!(ready.map((r) => r.message), work.key, options),
      timeoutMs,
    )
    : await boundedSend(
      (options) => deps.mailer.send(ready[0].message, orderEmailIdempotencyKey(ready[0].email), options),
      timeoutMs,
    );
  item.attempts++;
  if (!answer.ok) {
    item.maybeDelivered ||= mayHaveDelivered(answer);
    if (answer.retryable && !mayHaveDelivered(answer)) {
      // a rate limit: nothing was sent; the whole run waits its retry-after, and this request goes first again
      deps.pace.holdFor(answer.retryAfterMs ?? 1_000);
      deps.log({ event: "email.rate_limited", retryAfterMs: answer.retryAfterMs ?? null });
      return { results, again: true };
    }
  }
  ready.forEach(({ email }, i) => {
    const result: SendResult = !answer.ok
      ? { ...answer, maybeDelivered: item.maybeDelivered }
      : "providerIds" in answer
      ? { ok: true, providerId: answer.providerIds[i] ?? null }
      : answer;
    results.push(emailResult(email, result, item.attempts, deps.log));
  });
  return { results, again: false };
}

/** Records results at once; a failure to record is logged, and the rows wait for their claim to expire. */
async function _record(results: EmailResult[], deps: PacedSendDeps): Promise<SendSummary> {
  let recorded: RecordedEmail[] | null = null;
  try {
    recorded = await deps.outbox.recordResults(results);
  } catch (error) {
    deps.log({
      event: "email.record_failed",
      outboxIds: results.map((r) => r.id),
      error: describeError(error),
    });
  }
  return summarize(0, results, recorded);
}
