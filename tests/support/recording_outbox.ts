/** An in-memory EmailOutbox for sender tests that need no database: hands out rows, records results. */
import type { ClaimOptions, EmailOutbox } from "../../supabase/functions/_shared/email/email_outbox.ts";
import type { EmailResult, OutboxEmail } from "../../supabase/functions/_shared/email/order_email.ts";

/** The outbox plus what it was told. */
export interface RecordingOutbox extends EmailOutbox {
  /** Each `recordResults` call's argument, in order. */
  recorded: EmailResult[][];
  claims: ClaimOptions[];
  /** Each `prepareSend` call: the ids of the rows read, and the batch key given. */
  reads: { ids: string[]; batchKey?: string }[];
}

/**
 * An outbox whose `claimDue` hands out `due` once, in slices of the claim's limit of rows sent alone, and
 * whose `prepareSend` answers the rows it is given as they are (a new batch's key written on those in none).
 */
export function recordingOutbox(due: OutboxEmail[] = []): RecordingOutbox {
  const left = [...due];
  const recorded: EmailResult[][] = [];
  const claims: ClaimOptions[] = [];
  const reads: RecordingOutbox["reads"] = [];
  return {
    recorded,
    claims,
    reads,
    claimDue(options) {
      claims.push(options);
      return Promise.resolve({ emails: left.splice(0, options.aloneLimit), superseded: [] });
    },
    prepareSend(emails, batchKey) {
      reads.push({ ids: emails.map((email) => email.id), ...(batchKey ? { batchKey } : {}) });
      return Promise.resolve({
        emails: emails.map((email) => batchKey && !email.batchKey ? { ...email, batchKey } : email),
        superseded: [],
      });
    },
    recordResults(results) {
      recorded.push(results);
      // every result recorded, as sent, failed or handed back: no claim goes stale in memory
      return Promise.resolve(
        results.map((r) => ({
          id: r.id,
          status: "providerId" in r ? "sent" as const : "error" in r ? "failed" as const : "pending" as const,
        })),
      );
    },
    deadEmails: () => Promise.resolve({ total: 0, emails: [] }),
  };
}

/** A sleep that records the waits and returns at once. */
export function fakeSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
}
