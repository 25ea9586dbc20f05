/** The mailer port: what the outbox sender needs from an e-mail provider, in our own types. */
import type { EmailMessage } from "./email_templates.ts";
import type { EmailKind } from "./order_email.ts";

export type { EmailMessage };

/** The provider's answer for one message: its id, or an error and whether trying again can help. */
export type SendResult =
  | { ok: true; providerId: string }
  | { ok: false; error: string; retryable: boolean; retryAfterMs?: number };

/** Sends e-mail. The idempotency key makes a repeated send of one message harmless. */
export interface Mailer {
  /** Sends one message; never throws for a provider failure, it returns it. */
  send(message: EmailMessage, idempotencyKey: string): Promise<SendResult>;
}

/**
 * The idempotency key of an outbox e-mail, shaped `<event>/<id>` as Resend recommends: an order's own
 * e-mails `order/<orderId>/<buyer|seller>`, the buyer's status e-mails `order/<orderId>/status/<status>`.
 */
export function orderEmailIdempotencyKey(email: { orderId: string; kind: EmailKind }): string {
  return email.kind.startsWith("status_")
    ? `order/${email.orderId}/status/${email.kind.slice("status_".length)}`
    : `order/${email.orderId}/${email.kind}`;
}
