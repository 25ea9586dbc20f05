/** The mailer port: what the outbox senders need from an e-mail provider, in our own types. */
import type { EmailMessage } from "./email_templates.ts";
import type { OutboxEmail } from "./order_email.ts";
import type { RefundEmailData } from "./payment_email_data.ts";

export type { EmailMessage };

/**
 * The provider's answer for one message: its id, or an error, whether trying again can help, and whether
 * the request may have delivered it all the same (`maybeDelivered`: its answer was lost, a time-out, a
 * network error, a 5xx; absent: treat as possibly delivered). `providerId` is null when the provider said it
 * already had the message under its idempotency key without giving its id.
 */
export type SendResult =
  | { ok: true; providerId: string | null }
  | SendFailure;

/** A failed send. */
export interface SendFailure {
  ok: false;
  error: string;
  retryable: boolean;
  retryAfterMs?: number;
  maybeDelivered?: boolean;
}

/** The provider's answer for a batch: one id per message, in the order sent, or one failure for all. */
export type BatchSendResult =
  | { ok: true; providerIds: (string | null)[] }
  | SendFailure;

/** How one request to the provider may be ended early. */
export interface SendOptions {
  /** Aborts the request (its time-out). */
  signal?: AbortSignal;
}

/** The most messages one batch request carries (Resend's limit). */
export const MAX_BATCH_MESSAGES = 100;

/** Sends e-mail. The idempotency key makes a repeated send of one message (or one batch) harmless. */
export interface Mailer {
  /** Sends one message; never throws for a provider failure, it returns it. */
  send(message: EmailMessage, idempotencyKey: string, options?: SendOptions): Promise<SendResult>;
  /**
   * Sends up to {@linkcode MAX_BATCH_MESSAGES} messages in one request under one key, all or none; absent
   * when the provider has no batch endpoint (the drain then sends every message alone).
   */
  sendBatch?(
    messages: EmailMessage[],
    idempotencyKey: string,
    options?: SendOptions,
  ): Promise<BatchSendResult>;
}

/** Whether a failure's request may have delivered the message (unknown counts as yes). */
export function mayHaveDelivered(result: SendFailure): boolean {
  return result.maybeDelivered ?? true;
}

/**
 * The idempotency key of an outbox e-mail, shaped `<event>/<id>` as Resend recommends: an order's own
 * e-mails `order/<orderId>/<buyer|seller>`, the buyer's status e-mails `order/<orderId>/status/<status>`,
 * the seller's payment e-mail `order/<orderId>/seller/paid`, a refund's `order/<orderId>/refund/<refundId>`;
 * followed by `/retry/<n>` once an operator's retry gave the row a key never used (`keyRound` n).
 */
export function orderEmailIdempotencyKey(
  email: Pick<OutboxEmail, "orderId" | "kind" | "payload" | "keyRound">,
): string {
  const round = email.keyRound ? `/retry/${email.keyRound}` : "";
  return `${_ownKey(email)}${round}`;
}

function _ownKey(email: Pick<OutboxEmail, "orderId" | "kind" | "payload">): string {
  if (email.kind.startsWith("status_")) {
    return `order/${email.orderId}/status/${email.kind.slice("status_".length)}`;
  }
  if (email.kind === "seller_paid") return `order/${email.orderId}/seller/paid`;
  if (email.kind === "refund") {
    return `order/${email.orderId}/refund/${(email.payload as RefundEmailData).refund.refundId}`;
  }
  return `order/${email.orderId}/${email.kind}`;
}
