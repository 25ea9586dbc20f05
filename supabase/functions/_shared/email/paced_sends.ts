/**
 * The drain's sending: claimed rows go to the provider one request at a time on the pace's turns (a row
 * alone under its own key, or a batch, whole, under the batch's key), several requests may be under way at
 * once, each ends within the run's request time-out, and each request's result is recorded as soon as it
 * comes. A 429 puts its work back at the head of the queue after its `retry-after`. When the run's budget runs
 * out nothing new starts, and what was claimed and never sent, or refused by a 429 and not tried again, is
 * handed back (`released`): a rate limit is the provider's pace, not a failure of the e-mail.
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

interface _Item {
  work: SendWork;
  /** The rows that rendered, with their messages: rendered once, so a retried request is the same request. */
  ready?: { email: OutboxEmail; message: EmailMessage }[];
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
      queue.push(...work.map((w) => ({ work: w, attempts: 0, maybeDelivered: false })));
      summary.claimed += work.reduce((n, w) => n + rowsOf(w).length, 0);
      continue;
    }
    if (queue.length === 0 || running.size >= MAX_REQUESTS_UNDER_WAY) {
      if (running.size === 0) break;
      await Promise.race(running);
      continue;
    }
    // rendered before its turn, so that the request leaves on its turn: the provider counts arrivals
    const head = queue[0];
    if (!head.ready) {
      const unrenderable = await _prepare(head, deps);
      if (unrenderable.length > 0) addSummary(summary, await _record(unrenderable, deps));
      if (head.ready!.length === 0) {
        queue.splice(queue.indexOf(head), 1);
        continue;
      }
    }
    if (!(await pace.turn(budget.remainingMs())) || !budget.open()) break;
    const item = queue.shift()!;
    const task: Promise<void> = _sendItem(item, deps).then(async ({ results, again }) => {
      if (again) queue.unshift(item);
      if (results.length > 0) addSummary(summary, await _record(results, deps));
    }).finally(() => running.delete(task));
    running.add(task);
  }
  while (running.size > 0) await Promise.race(running);
  // never sent, or refused by a 429 and not tried again before the budget ran out: nothing was delivered
  const left = queue.flatMap((item) =>
    (item.ready?.map((r) => r.email) ?? rowsOf(item.work)).map((email): EmailResult => ({
      id: email.id,
      claimToken: email.claimToken,
      released: true,
      ...(item.attempts > 0 ? { attempts: item.attempts } : {}),
    }))
  );
  if (left.length > 0) {
    const rateLimited = queue.filter((item) => item.attempts > 0).length;
    deps.log({ event: "email.released", released: left.length, rateLimitedRequests: rateLimited });
    addSummary(summary, { ...await _record(left, deps), released: left.length });
  }
  return summary;
}

/** Renders an item's rows once; answers the results of rows that cannot be rendered, out of its request. */
async function _prepare(item: _Item, deps: PacedSendDeps): Promise<EmailResult[]> {
  const results: EmailResult[] = [];
  item.ready = [];
  for (const email of rowsOf(item.work)) {
    const message = await renderClaimedEmail(email, deps.render);
    // a row that cannot be rendered is sent by nobody: it fails alone
    if ("error" in message) results.push(emailResult(email, message.error, 1, deps.log));
    else item.ready.push({ email, message });
  }
  return results;
}

/** Sends one item's request. */
async function _sendItem(item: _Item, deps: PacedSendDeps): Promise<_Sent> {
  const results = item.ready ? [] : await _prepare(item, deps);
  const ready = item.ready!;
  if (ready.length === 0) return { results, again: false };
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
