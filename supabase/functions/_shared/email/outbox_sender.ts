/**
 * The request path's sender: `sendOrderEmails` sends the e-mails a function's own step claimed (an order's
 * two, a status move's one) right after the answer, inside `EdgeRuntime.waitUntil`, each alone under its own
 * key, up to 3 tries each bounded by EMAIL_SEND_TIMEOUT_MS, then records the results in one call. The first
 * try goes as the step wrote the e-mail, moments ago in the same transaction as the order's state; before a
 * retry (after its back-off, which a 429's `retry-after` may make seconds) the row is read again
 * (`prepareSend`), rendered from the order as it is then, and not sent when the order has superseded it. A
 * row ends `sent` with the provider's id, or `failed` (`dead` after its 10th failed send) with the error, its
 * attempts, and whether a try may have delivered it; nothing is dropped. What it misses, the outbox drain
 * sends (`outbox_drain.ts`).
 */
import type { EmailOutbox, RecordedEmail } from "./email_outbox.ts";
import type { EmailMessage } from "./email_templates.ts";
import {
  describeError,
  type EmailRenderConfig,
  emailResult,
  renderClaimedEmail,
  type SendSummary,
  summarize,
} from "./email_results.ts";
import { type Mailer, orderEmailIdempotencyKey } from "./mailer.ts";
import { DEFAULT_RETRY, type RetryPolicy, type SendContext, withRetry } from "./send_retry.ts";
import type { EmailResult, OutboxEmail } from "./order_email.ts";

export type { EmailRenderConfig, SendSummary };

/** The longest request to the provider by default (EMAIL_SEND_TIMEOUT_MS). */
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

/** What the senders need; `sleep` and `log` are injectable so tests neither wait nor print. */
export interface OutboxSenderDeps {
  mailer: Mailer;
  outbox: EmailOutbox;
  render: EmailRenderConfig;
  sleep?: (ms: number) => Promise<void>;
  /** One event per call, written as one JSON line; never given an address, phone or key. */
  log?: (event: Record<string, unknown>) => void;
  retry?: Partial<RetryPolicy>;
  /** Each request's time-out (EMAIL_SEND_TIMEOUT_MS; default 10 s). */
  sendTimeoutMs?: number;
}

/**
 * Sends the e-mails a request claimed (status `sending`), each with up to `tries` tries and exponential
 * back-off (a 429's `retry-after` wins), then records all results in one call. Never throws: a failure to
 * record is logged, and the drain picks the rows up once their claim is stale.
 */
export async function sendOrderEmails(emails: OutboxEmail[], deps: OutboxSenderDeps): Promise<SendSummary> {
  const ctx = senderContext(deps);
  const results = await Promise.all(emails.map((email) => _sendClaimed(email, deps, ctx)));
  let recorded: RecordedEmail[] | null = null;
  try {
    recorded = await deps.outbox.recordResults(results);
  } catch (error) {
    ctx.log({
      event: "email.record_failed",
      outboxIds: emails.map((e) => e.id),
      error: describeError(error),
    });
  }
  return summarize(emails.length, results, recorded);
}

/** Sends one claimed row with its retries, each retry read and rendered again; answers its result. */
async function _sendClaimed(
  email: OutboxEmail,
  deps: OutboxSenderDeps,
  ctx: SendContext,
): Promise<EmailResult> {
  let message = await renderClaimedEmail(email, deps.render);
  if ("error" in message) return emailResult(email, message.error, 1, ctx.log);
  let ready: EmailMessage = message;
  const key = orderEmailIdempotencyKey(email);
  // a retry goes as the order is when it leaves; a row superseded, or no longer this claim's, goes no more
  // (its result is then refused, and counted as ignored)
  const beforeRetry = async (): Promise<boolean> => {
    let read;
    try {
      read = await deps.outbox.prepareSend([email]);
    } catch (error) {
      ctx.log({ event: "email.read_failed", outboxIds: [email.id], error: describeError(error) });
      return false;
    }
    if (read.superseded.length > 0) ctx.log({ event: "email.superseded", emails: read.superseded });
    if (read.emails.length === 0) return false;
    message = await renderClaimedEmail(read.emails[0], deps.render);
    if ("error" in message) return false;
    ready = message;
    return true;
  };
  const { result, attempts } = await withRetry(
    (options) => deps.mailer.send(ready, key, options),
    ctx,
    beforeRetry,
  );
  return emailResult(email, result, attempts, ctx.log);
}

/** The retry loop's context from a sender's parts. */
export function senderContext(deps: OutboxSenderDeps): SendContext {
  return {
    retry: { ...DEFAULT_RETRY, ...deps.retry },
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    log: deps.log ?? ((event) => console.log(JSON.stringify({ at: new Date().toISOString(), ...event }))),
    sendTimeoutMs: deps.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
  };
}
