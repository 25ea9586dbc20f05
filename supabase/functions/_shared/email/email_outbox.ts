/** The e-mail outbox port: claim due rows for sending, record what the provider answered, report dead rows. */
import type { EmailKind, EmailResult, OutboxEmail } from "./order_email.ts";

/** Which rows a drain claims: see `claim_due_emails` in the outbox migrations. */
export interface ClaimOptions {
  /**
   * At most this many rows that no request may have delivered, as one new batch (one provider request);
   * 0 when the mailer has no batch endpoint: such rows are then claimed to be sent alone.
   */
  batchLimit: number;
  /** At most this many rows to be sent alone (one provider request each), at least 1. */
  aloneLimit: number;
  /** Pending rows are due this long after they were written; failed rows this long, doubled per failure. */
  minAgeSeconds: number;
  /** Rows claimed by the request path and still `sending` this long after are due again. */
  staleAfterSeconds: number;
  /** How long this claim holds: until the run's end. Then any run may claim the rows again. */
  claimMs: number;
  /** How long ago the run started: a row it claimed or tried already is not claimed again (default 0). */
  runMs?: number;
}

/** A row the claim did not send because its order has left the state it asks someone to act on. */
export interface SupersededEmail {
  id: string;
  orderId: string;
  kind: EmailKind;
}

/**
 * One claim: the rows of one kind of request (a batch, whole, in its order; or rows to send alone), and the
 * rows it marked superseded. {@linkcode EmailOutbox.prepareSend} answers the same shape for one request's rows.
 */
export interface ClaimedEmails {
  emails: OutboxEmail[];
  superseded: SupersededEmail[];
}

/** A row whose result was recorded, with the status it now has (`dead` after its 10th failed send). */
export interface RecordedEmail {
  id: string;
  /** `pending` or `failed` for a row handed back unsent. */
  status: "sent" | "failed" | "dead" | "pending";
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
  /** Atomically claims due rows, each under a new claim token, and marks superseded rows. */
  claimDue(options: ClaimOptions): Promise<ClaimedEmails>;
  /**
   * Reads one request's claimed rows again right before it leaves (`prepare_email_sends`, by id and claim
   * token): each row still claimed under its token as it is now (an order's e-mails from its rows, every row
   * with the order's current status), and the rows its order has superseded since, marked so. Given
   * `batchKey` (a new batch's key), writes it on the rows no request may have delivered before the request
   * carries them. A row in neither list is no longer this claim's, or another transaction holds it this
   * moment: it is not sent.
   */
  prepareSend(emails: OutboxEmail[], batchKey?: string): Promise<ClaimedEmails>;
  /**
   * Marks each row sent (with the provider id), failed or dead (with the error), or hands it back, when it is
   * still claimed under the result's token and that claim has not expired; answers the rows it recorded.
   */
  recordResults(results: EmailResult[]): Promise<RecordedEmail[]>;
  /** The dead rows: how many, and the newest `limit` of them. */
  deadEmails(limit: number): Promise<DeadEmailReport>;
}
