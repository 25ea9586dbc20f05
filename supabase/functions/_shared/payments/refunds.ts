/**
 * Refunds as data and the database port that keeps them (the `refunds` table and its SQL functions): a row
 * per payment whose money is due back, claimed by a drain's run to issue at the gateway, its result recorded
 * under the claim, and settled by the gateway's refund events. Amounts to the gateway in minor units (paise).
 */
import type { OutboxEmail } from "../email/order_email.ts";

/** A refund's state (`refunds.status`). */
export const REFUND_STATUSES = ["pending", "issued", "processed", "failed", "manual"] as const;

/** One of {@linkcode REFUND_STATUSES}. */
export type RefundStatus = typeof REFUND_STATUSES[number];

/** A refund claimed for issuing: what the gateway's refund call needs, and the claim to record under. */
export interface ClaimedRefund {
  refundId: string;
  orderId: string;
  /** The provider the payment was recorded under (`razorpay`). */
  provider: string;
  providerPaymentId: string;
  amountMinor: number;
  currency: string;
  /** Attempts recorded before this claim. */
  attempts: number;
  claimToken: string;
}

/** What a claimer reports for one claimed refund. */
export type RefundResult =
  /** The gateway holds the refund (created now, or adopted); `providerStatus` as the gateway reports it. */
  | { kind: "issued"; providerRefundId: string; providerStatus: string }
  /** The gateway refused or did not answer: counted, retried by a later run, failed at the tenth. */
  | { kind: "error"; error: string }
  /** Never tried: the run's budget ended first. Nothing counted. */
  | { kind: "released" };

/** What recording a result did; `recorded` false when the claim had lapsed or was taken over. */
export interface RecordedRefund {
  recorded: boolean;
  refundId: string;
  orderId?: string;
  status?: RefundStatus;
  attempts?: number;
  /** The buyer's refund e-mail, claimed for the run to send, when the gateway took the refund now. */
  emails?: OutboxEmail[];
}

/** A refund event the gateway signed: `processed` or `failed`. */
export interface RefundEvent {
  provider: string;
  /** The provider's id of this event: a second delivery of it changes nothing. */
  eventId: string;
  providerPaymentId: string;
  providerRefundId: string;
  /** The receipt the refund was created with (our refund's id), when the gateway echoes one. */
  receipt: string | null;
  status: "processed" | "failed";
}

/** What an event did: `found` false for a refund not ours (made by hand in the gateway's dashboard). */
export interface RefundEventResult {
  found: boolean;
  changed: boolean;
  /** The event was received before: it changed nothing now, whatever it did the first time. */
  replayed: boolean;
  refundId?: string;
  orderId?: string;
  status?: RefundStatus;
}

/** The refunds that failed and wait for a person: how many, the newest listed. */
export interface FailedRefunds {
  total: number;
  refunds: { refundId: string; orderId: string }[];
}

/** Options of a claim: how many, how long a failed refund waits, how long the claim holds. */
export interface RefundClaim {
  limit: number;
  /** A refund whose last attempt failed is due this long × 2^(attempts - 1) after it (at most × 256). */
  minAgeSeconds: number;
  /** The claim lapses this long from now (the run's end). */
  claimMs: number;
  /** The run started this long ago: a refund it tried already is not claimed again. */
  runMs: number;
}

/** The refunds' database port; every method throws OrderError (INTERNAL_ERROR for outages). */
export interface RefundStore {
  claimDue(claim: RefundClaim): Promise<ClaimedRefund[]>;
  record(refund: ClaimedRefund, result: RefundResult): Promise<RecordedRefund>;
  failedRefunds(limit: number): Promise<FailedRefunds>;
  /** Past `deadline` the store gives up, and nothing of the event is stored. */
  recordEvent(event: RefundEvent, options: { deadline: Date }): Promise<RefundEventResult>;
}
