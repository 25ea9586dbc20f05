/** The e-mail outbox port: claim due rows for sending, record what the provider answered. */
import type { EmailResult, OutboxEmail } from "./order_email.ts";

/** Which rows a drain claims: see `claim_due_emails` in the outbox migration. */
export interface ClaimOptions {
  /** At most this many rows (one provider batch). */
  limit: number;
  /** Pending and failed rows are due this long after they were written or last tried. */
  minAgeSeconds: number;
  /** Rows still `sending` this long after their claim belong to a sender that died; they are due again. */
  staleAfterSeconds: number;
}

/** The outbox as the senders see it. Both calls throw an OrderError (INTERNAL_ERROR) when the database fails. */
export interface EmailOutbox {
  /** Atomically claims due rows (for update skip locked): two senders never get the same row. */
  claimDue(options: ClaimOptions): Promise<OutboxEmail[]>;
  /** Marks each row sent (with the provider id) or failed (with the error), adding its attempts. */
  recordResults(results: EmailResult[]): Promise<void>;
}
