/**
 * A drain's work as requests: a row alone under its own key, or the rows of one batch, whole, under the
 * batch's key (as the claim gave them); and the counts of a run's sending. Pure.
 */
import { emptySummary, type SendSummary } from "./email_results.ts";
import type { OutboxEmail } from "./order_email.ts";

/** One request's worth of claimed rows. */
export type SendWork =
  | { kind: "alone"; email: OutboxEmail }
  | { kind: "batch"; key: string; emails: OutboxEmail[] };

/** What a run's sending did: a sender's counts, and the rows superseded and handed back. */
export interface DrainSummary extends SendSummary {
  /** Rows not sent because their order has left the state they ask someone to act on. */
  superseded: number;
  /** Rows claimed and never sent (the budget ran out first), handed back to be claimed again. */
  released: number;
}

/** The summary of nothing. */
export function emptyDrainSummary(): DrainSummary {
  return { ...emptySummary(), superseded: 0, released: 0 };
}

/** The claimed rows as requests: rows of one batch together (in the claim's order), every other row alone. */
export function sendWorkOf(emails: OutboxEmail[]): SendWork[] {
  const work: SendWork[] = [];
  const batches = new Map<string, OutboxEmail[]>();
  for (const email of emails) {
    if (!email.batchKey) {
      work.push({ kind: "alone", email });
      continue;
    }
    const members = batches.get(email.batchKey);
    if (members) members.push(email);
    else {
      const batch = [email];
      batches.set(email.batchKey, batch);
      work.push({ kind: "batch", key: email.batchKey, emails: batch });
    }
  }
  return work;
}

/**
 * Rows the request path's way claimed for the run (the buyers' e-mails of the orders its cancellation of
 * unpaid orders cancelled) as requests: rows in no batch yet go in new batches of up to `batchLimit`, each
 * under a key of `newKey` (the read right before the request writes it on the rows, and sends alone any row a
 * request may have delivered already); rows of a batch go with it; 0: every row alone (no batch endpoint).
 */
export function newBatchesOf(emails: OutboxEmail[], batchLimit: number, newKey: () => string): SendWork[] {
  if (batchLimit < 1) return emails.map((email) => ({ kind: "alone", email }));
  const loose = emails.filter((email) => !email.batchKey);
  const work = sendWorkOf(emails.filter((email) => email.batchKey));
  for (let i = 0; i < loose.length; i += batchLimit) {
    work.push({ kind: "batch", key: newKey(), emails: loose.slice(i, i + batchLimit) });
  }
  return work;
}

/** The rows of one request. */
export function rowsOf(work: SendWork): OutboxEmail[] {
  return work.kind === "alone" ? [work.email] : work.emails;
}
