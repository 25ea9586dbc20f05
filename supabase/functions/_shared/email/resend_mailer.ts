/**
 * The Resend adapter of {@linkcode Mailer}: the only module that knows Resend. It unwraps the SDK's
 * `{ data, error }` into {@linkcode SendResult}s; no Resend type leaves this file. The SDK is imported
 * on the first send, so a function that answers without sending never loads it. Every request is aborted
 * after `timeoutMs` (EMAIL_SEND_TIMEOUT_MS) or when the caller's signal fires, whichever comes first.
 */
import type { BatchSendResult, Mailer, SendFailure, SendOptions, SendResult } from "./mailer.ts";
import type { EmailMessage } from "./email_templates.ts";

/** Options of {@linkcode createResendMailer}. */
export interface ResendMailerOptions {
  apiKey: string;
  /** The API's base URL (`RESEND_BASE_URL`); default https://api.resend.com. */
  baseUrl?: string;
  /** Abandon a request after this long (default 10 s); it counts as a retryable failure. */
  timeoutMs?: number;
}

// The few members of the SDK we use, so the lazy import needs no type from it at module load.
type _ResendResponse<T> = {
  data: T | null;
  error: { message?: string; statusCode?: number | null; name?: string } | null;
  headers?: Record<string, string> | null;
};
type _ApiEmail = { from: string; to: string; replyTo?: string; subject: string; html: string; text: string };
type _RequestOptions = { idempotencyKey: string; signal: AbortSignal };
interface _ResendClient {
  emails: { send(email: _ApiEmail, options: _RequestOptions): Promise<_ResendResponse<{ id: string }>> };
  batch: {
    send(
      emails: _ApiEmail[],
      options: _RequestOptions & { batchValidation: "strict" },
    ): Promise<_ResendResponse<{ data: { id: string }[] }>>;
  };
}

/** A Mailer that sends through the Resend SDK: one message (POST /emails) or a batch (POST /emails/batch). */
export function createResendMailer(options: ResendMailerOptions): Mailer {
  if (!options.apiKey) throw new Error("RESEND_API_KEY is empty: the Resend mailer needs an API key");
  const timeoutMs = options.timeoutMs ?? 10_000;
  let client: Promise<_ResendClient> | undefined;
  const resend = () =>
    client ??= import("resend").then(({ Resend }) =>
      // The base URL is passed explicitly: the SDK would otherwise read process.env.RESEND_BASE_URL.
      new Resend(options.apiKey, {
        baseUrl: options.baseUrl || "https://api.resend.com",
      }) as unknown as _ResendClient
    );
  const signalOf = (sendOptions?: SendOptions) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return sendOptions?.signal ? AbortSignal.any([timeout, sendOptions.signal]) : timeout;
  };

  async function send(message: EmailMessage, idempotencyKey: string, sendOptions?: SendOptions) {
    const answer = await (await resend()).emails.send(_apiEmail(message), {
      idempotencyKey,
      signal: signalOf(sendOptions),
    });
    if (answer.error) return _failure(answer.error, answer.headers);
    const id = answer.data?.id;
    return typeof id === "string" && id ? { ok: true, providerId: id } as SendResult : _malformed();
  }

  async function sendBatch(
    messages: EmailMessage[],
    idempotencyKey: string,
    sendOptions?: SendOptions,
  ): Promise<BatchSendResult> {
    // strict: Resend sends all of them or none, so one answer stands for every message of the request
    const answer = await (await resend()).batch.send(messages.map(_apiEmail), {
      idempotencyKey,
      signal: signalOf(sendOptions),
      batchValidation: "strict",
    });
    if (answer.error) {
      const failure = _failure(answer.error, answer.headers);
      return failure.ok ? { ok: true, providerIds: messages.map(() => null) } : failure;
    }
    const ids = answer.data?.data?.map((entry) => entry?.id);
    return Array.isArray(ids) && ids.length === messages.length &&
        ids.every((id) => typeof id === "string" && id)
      ? { ok: true, providerIds: ids as string[] }
      : _malformed();
  }

  return { send, sendBatch };
}

function _apiEmail(message: EmailMessage): _ApiEmail {
  return {
    from: message.from,
    to: message.to,
    ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    subject: message.subject,
    html: message.html,
    text: message.text,
  };
}

/**
 * Maps a Resend error to a SendResult:
 * - 409 `invalid_idempotent_request`: the key was used before with another body. Resend keeps a key once
 *   an e-mail was sent under it ("we check if an email with the same idempotency key has already been
 *   sent"), so the message is out already (the body differs when the order changed since): sent, no id.
 * - rate limits (429 `rate_limit_exceeded`): refused, worth retrying after `retry-after`; a daily or monthly
 *   quota: refused, not now. Nothing was sent.
 * - concurrent use of one key (409), server errors (5xx), network failures and time-outs (no status): worth
 *   retrying, and the request may have delivered the message.
 * - every other 4xx (validation, bad key, bad sender): refused, not worth retrying, nothing sent.
 */
function _failure(
  error: NonNullable<_ResendResponse<unknown>["error"]>,
  headers: Record<string, string> | null | undefined,
): SendFailure | { ok: true; providerId: null } {
  const status = typeof error.statusCode === "number" ? error.statusCode : null;
  const name = error.name ?? "unknown_error";
  if (status === 409 && name === "invalid_idempotent_request") return { ok: true, providerId: null };
  const text = `resend ${status ?? "network"} ${name}: ${error.message ?? "no message"}`;
  if (status === 429 && name !== "daily_quota_exceeded" && name !== "monthly_quota_exceeded") {
    const retryAfterMs = parseRetryAfter(headers?.["retry-after"]);
    return {
      ok: false,
      error: text,
      retryable: true,
      maybeDelivered: false,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  const unknown = status === null || status >= 500 || name === "concurrent_idempotent_requests";
  return { ok: false, error: text, retryable: unknown, maybeDelivered: unknown };
}

/** A success without an id: Resend took the request, so it may have sent the message. */
function _malformed(): SendFailure {
  return { ok: false, error: "resend answered without an email id", retryable: true, maybeDelivered: true };
}

/** A `Retry-After` value (delay in seconds, or an HTTP date) in milliseconds; undefined when absent or bad. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
