/**
 * The Resend adapter of {@linkcode Mailer}: the only module that knows Resend. It unwraps the SDK's
 * `{ data, error }` into {@linkcode SendResult}s; no Resend type leaves this file. The SDK is imported
 * on the first send, so a function that answers without sending never loads it.
 */
import type { Mailer, SendResult } from "./mailer.ts";
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
interface _ResendClient {
  emails: {
    send(email: _ApiEmail, options: { idempotencyKey: string; signal: AbortSignal }): Promise<
      _ResendResponse<{ id: string }>
    >;
  };
}

/** A Mailer that sends through the Resend SDK. */
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

  async function send(message: EmailMessage, idempotencyKey: string): Promise<SendResult> {
    const answer = await (await resend()).emails.send(_apiEmail(message), {
      idempotencyKey,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (answer.error) return _failure(answer.error, answer.headers);
    const id = answer.data?.id;
    return typeof id === "string" && id ? { ok: true, providerId: id } : _malformed();
  }

  return { send };
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
 * Maps a Resend error to a SendResult: rate limits (429 `rate_limit_exceeded`), concurrent use of one
 * idempotency key (409), server errors (5xx) and network failures (no status) are worth retrying; a
 * daily or monthly quota and every other 4xx (validation, bad key, bad sender) are not, now.
 */
function _failure(
  error: NonNullable<_ResendResponse<unknown>["error"]>,
  headers: Record<string, string> | null | undefined,
): SendResult {
  const status = typeof error.statusCode === "number" ? error.statusCode : null;
  const name = error.name ?? "unknown_error";
  const text = `resend ${status ?? "network"} ${name}: ${error.message ?? "no message"}`;
  if (status === 429 && name !== "daily_quota_exceeded" && name !== "monthly_quota_exceeded") {
    const retryAfterMs = parseRetryAfter(headers?.["retry-after"]);
    return {
      ok: false,
      error: text,
      retryable: true,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  const retryable = status === null || status >= 500 || name === "concurrent_idempotent_requests";
  return { ok: false, error: text, retryable };
}

function _malformed(): SendResult {
  return { ok: false, error: "resend answered without an email id", retryable: true };
}

/** A `Retry-After` value (delay in seconds, or an HTTP date) in milliseconds; undefined when absent or bad. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
