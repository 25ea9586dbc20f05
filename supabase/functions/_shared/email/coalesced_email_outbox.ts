/**
 * Records e-mail results of many orders in one database call. Under load every order's sender would
 * otherwise open its own transaction just to mark two rows sent, as costly as the order itself; results
 * that arrive within `windowMs` of each other share one `recordResults` call instead.
 * The window ({@linkcode RESULTS_WINDOW_MS}) is long enough for the orders of a busy second to share a
 * handful of calls: a row's result waits that much longer in `sending`, which nothing reads but a drain, and
 * a drain takes a row only once its claim is minutes old.
 */
import type { EmailOutbox, RecordedEmail } from "./email_outbox.ts";
import type { EmailResult } from "./order_email.ts";

/**
 * How long the first result of a call waits for others by default: 100 ms, so that at ~150 orders a second
 * from one client (about 7 ms apart) 15 orders share a call, and more at higher rates.
 */
export const RESULTS_WINDOW_MS = 100;

/** Most results in one call (one flush starts at once when this many are waiting). */
export const MAX_RESULTS_PER_CALL = 200;

interface _Waiting {
  results: EmailResult[];
  resolve: (recorded: RecordedEmail[]) => void;
  reject: (error: unknown) => void;
}

/**
 * An EmailOutbox whose `recordResults` waits up to `windowMs` for others to join one call; each caller's
 * promise settles with the call that carried its results, with the rows of its own results that were
 * recorded. Claims, the preparations of sends and the dead-row report pass straight through.
 */
export function coalescedEmailOutbox(outbox: EmailOutbox, windowMs = RESULTS_WINDOW_MS): EmailOutbox {
  let waiting: _Waiting[] = [];
  let count = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = [];
    count = 0;
    outbox.recordResults(batch.flatMap((entry) => entry.results)).then(
      (recorded) => {
        const byId = new Map(recorded.map((row) => [row.id, row]));
        for (const entry of batch) {
          entry.resolve(entry.results.flatMap((result) => byId.get(result.id) ?? []));
        }
      },
      (error) => batch.forEach((entry) => entry.reject(error)),
    );
  };

  return {
    claimDue: (options) => outbox.claimDue(options),
    prepareSend: (emails, batchKey) => outbox.prepareSend(emails, batchKey),
    deadEmails: (limit) => outbox.deadEmails(limit),
    recordResults(results) {
      if (results.length === 0) return Promise.resolve([]);
      return new Promise<RecordedEmail[]>((resolve, reject) => {
        waiting.push({ results, resolve, reject });
        count += results.length;
        if (count >= MAX_RESULTS_PER_CALL) flush();
        else timer ??= setTimeout(flush, windowMs);
      });
    },
  };
}
