import assert from "node:assert/strict";
import {
  coalescedEmailOutbox,
  MAX_RESULTS_PER_CALL,
} from "../supabase/functions/_shared/email/coalesced_email_outbox.ts";
import type { EmailOutbox } from "../supabase/functions/_shared/email/email_outbox.ts";
import type { EmailResult } from "../supabase/functions/_shared/email/order_email.ts";

/** An outbox recording each call; it records every result but those of ids in `stale` (claims gone stale). */
function recorder(fail = false, stale: string[] = []): EmailOutbox & { calls: EmailResult[][] } {
  const calls: EmailResult[][] = [];
  return {
    calls,
    claimDue: () => Promise.resolve({ emails: [], superseded: [] }),
    prepareSend: () => Promise.resolve({ emails: [], superseded: [] }),
    deadEmails: () => Promise.resolve({ total: 0, emails: [] }),
    recordResults(results) {
      calls.push(results);
      if (fail) return Promise.reject(new Error("database down"));
      return Promise.resolve(
        results.filter((r) => !stale.includes(r.id)).map((r) => ({ id: r.id, status: "sent" as const })),
      );
    },
  };
}

const sent = (id: string): EmailResult => ({ id, claimToken: `t-${id}`, attempts: 1, providerId: `p-${id}` });

Deno.test("coalescedEmailOutbox() records results arriving within the window in one call", async () => {
  const inner = recorder();
  const outbox = coalescedEmailOutbox(inner, 20);
  await Promise.all([outbox.recordResults([sent("a"), sent("b")]), outbox.recordResults([sent("c")])]);
  assert.deepEqual(inner.calls, [[sent("a"), sent("b"), sent("c")]]);
});

Deno.test("coalescedEmailOutbox() answers each caller the rows of its own results that were recorded", async () => {
  const outbox = coalescedEmailOutbox(recorder(false, ["b"]), 20);
  const [first, second] = await Promise.all([
    outbox.recordResults([sent("a"), sent("b")]),
    outbox.recordResults([sent("c")]),
  ]);
  assert.deepEqual(first, [{ id: "a", status: "sent" }]);
  assert.deepEqual(second, [{ id: "c", status: "sent" }]);
});

Deno.test("coalescedEmailOutbox() flushes at once when a call would pass its size limit", async () => {
  const inner = recorder();
  const outbox = coalescedEmailOutbox(inner, 60_000);
  const many = Array.from({ length: MAX_RESULTS_PER_CALL }, (_, i) => sent(String(i)));
  await outbox.recordResults(many);
  assert.equal(inner.calls.length, 1);
  assert.equal(inner.calls[0].length, MAX_RESULTS_PER_CALL);
});

Deno.test("coalescedEmailOutbox() rejects every caller of a call that failed", async () => {
  const outbox = coalescedEmailOutbox(recorder(true), 5);
  const outcomes = await Promise.allSettled([
    outbox.recordResults([sent("a")]),
    outbox.recordResults([sent("b")]),
  ]);
  assert.deepEqual(outcomes.map((o) => o.status), ["rejected", "rejected"]);
});

Deno.test("coalescedEmailOutbox() makes no call for no results", async () => {
  const inner = recorder();
  await coalescedEmailOutbox(inner, 5).recordResults([]);
  assert.deepEqual(inner.calls, []);
});
