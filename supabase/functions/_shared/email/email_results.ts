/**
 * What every sender does around a provider request: render a claimed row (with its tracking token), turn
 * the provider's answer into the row's {@linkcode EmailResult} and its log line (never an address), and count.
 */
import type { RecordedEmail } from "./email_outbox.ts";
import type { EmailMessage, RenderOptions } from "./email_templates.ts";
import { mayHaveDelivered, type SendFailure, type SendResult } from "./mailer.ts";
import type { EmailResult, OutboxEmail } from "./order_email.ts";
import { renderOutboxEmail, showsTrackingLink } from "./render_outbox_email.ts";
import { orderTrackingToken } from "../orders/tracking_token.ts";

/**
 * What a sender renders e-mails with: the templates' options, and the secret it computes each order's
 * tracking token with (`{token}` in the tracking link), since the templates do no cryptography.
 */
export interface EmailRenderConfig extends Omit<RenderOptions, "trackingToken"> {
  /** ORDER_TRACKING_SECRET. */
  trackingSecret: string;
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
  /** Results the outbox refused: their claim had expired, or another sender had claimed the row. */
  ignored: number;
}

/** The summary of nothing. */
export function emptySummary(): SendSummary {
  return { claimed: 0, sent: 0, failed: 0, dead: 0, ignored: 0 };
}

/** Renders one claimed row, or a failure that sent nothing (a row the templates cannot render). */
export async function renderClaimedEmail(
  email: OutboxEmail,
  config: EmailRenderConfig,
): Promise<EmailMessage | { error: SendFailure }> {
  try {
    const { trackingSecret, ...options } = config;
    // an HMAC per e-mail that shows the link, not per e-mail sent: the seller's alert has none
    const trackingToken = showsTrackingLink(email) && options.trackingUrlTemplate.includes("{token}")
      ? await orderTrackingToken(trackingSecret, email.orderId)
      : undefined;
    return renderOutboxEmail(email, { ...options, trackingToken });
  } catch (error) {
    return {
      error: {
        ok: false,
        error: `render failed: ${describeError(error)}`,
        retryable: false,
        maybeDelivered: false,
      },
    };
  }
}

/** The row's result for the provider's answer after `attempts` requests, logged as one line. */
export function emailResult(
  email: OutboxEmail,
  result: SendResult,
  attempts: number,
  log: (event: Record<string, unknown>) => void,
): EmailResult {
  const ids = { outboxId: email.id, orderId: email.orderId, kind: email.kind, attempts };
  const claim = { id: email.id, claimToken: email.claimToken, attempts };
  if (result.ok) {
    log({ event: "email.sent", ...ids, providerId: result.providerId });
    return { ...claim, providerId: result.providerId };
  }
  const maybeDelivered = mayHaveDelivered(result);
  log({
    event: "email.failed",
    ...ids,
    retryable: result.retryable,
    maybeDelivered,
    error: _redact(result.error),
  });
  return { ...claim, error: result.error, maybeDelivered };
}

/** Counts of one call; `recorded` is null when recording failed (the rows stay claimed until they expire). */
export function summarize(
  claimed: number,
  results: EmailResult[],
  recorded: RecordedEmail[] | null,
): SendSummary {
  const sent = results.filter((r) => "providerId" in r).length;
  const failed = results.filter((r) => "error" in r).length;
  return {
    claimed,
    sent,
    failed,
    dead: recorded?.filter((row) => row.status === "dead").length ?? 0,
    ignored: recorded ? results.length - recorded.length : 0,
  };
}

/** Adds `b`'s counts to `a`. */
export function addSummary<T extends SendSummary>(a: T, b: Partial<T>): T {
  for (const key of Object.keys(b) as (keyof T)[]) (a[key] as number) += b[key] as number;
  return a;
}

/** An error as one line. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Provider errors may quote an address; a log line must not. */
function _redact(text: string): string {
  return text.replace(/[^\s<>"'`,;:()]+@[^\s<>"'`,;:()]+/g, "[address]").slice(0, 500);
}
