/** The e-mail outbox port: claim due rows for sending, record what the provider answered, report dead rows. */
import type { EmailKind, EmailResult, OutboxEmail } from "./order_email.ts";

/** Which rows a drain claims: see `claim_due_emails` in the outbox migrations. */
export interface ClaimOptions {
  /** At most this many rows (one provider batch). */
  limit: number;
  /** Pending rows are due this long after they were written; failed rows this long, doubled per failure. */
  minAgeSeconds: number;
  /** Rows still `sending` this long after their claim belong to a sender that died; they are due again. */
  staleAfterSeconds: number;
}

/** A row whose result was recorded, with the status it now has (`dead` after its 10th failed send). */
export interface RecordedEmail {
  id: string;
  status: "sent" | "failed" | "dead";
}

/** A row that will not be sent automatically any more. No address: the report goes to logs. */
export interface DeadEmail {
  id: string;
  orderId: string;
  kind: EmailKind;
  /** Sends that failed (10). */
  failures: number;
  /** Requests to the provider, retries included. */
  attempts: number;
  lastTriedAt: string;
}

/** How many rows are dead, and the newest of them. */
export interface DeadEmailReport {
  total: number;
  emails: DeadEmail[];
}

/** The outbox as the senders see it. Every call throws an OrderError (INTERNAL_ERROR) when the database fails. */
export interface EmailOutbox {
  /** Atomically claims due rows (for update skip locked), each under a new claim token. */
  claimDue(options: ClaimOptions): Promise<OutboxEmail[]>;
  /**
   * Marks each row sent (with the provider id), failed or dead (with the error), adding its attempts, when
   * it is still claimed under the result's token; answers the rows it recorded (a stale claim's are not).
   */
  recordResults(results: EmailResult[]): Promise<RecordedEmail[]>;
  /** The dead rows: how many, and the newest `limit` of them. */
  deadEmails(limit: number): Promise<DeadEmailReport>;
}
