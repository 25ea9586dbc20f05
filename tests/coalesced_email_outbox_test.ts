import assert from "node:assert/strict";
import {
  coalescedEmailOutbox,
  MAX_RESULTS_PER_CALL,
} from "../supabase/functions/_shared/email/coalesced_email_outbox.ts";
import type { EmailOutbox } from "../supabase/functions/_shared/email/email_outbox.ts";
import type { EmailResult } from "../supabase/functions/_shared/email/order_email.ts";

function recorder(fail = false): EmailOutbox & { calls: EmailResult[][] } {
  const calls: EmailResult[][] = [];
  return {
    calls,
    claimDue: () => Promise.resolve([]),
    recordResults(results) {
      calls.push(results);
      return fail ? Promise.reject(new Error("database down")) : Promise.resolve();
    },
  };
}

const sent = (id: string): EmailResult => ({ id, attempts: 1, providerId: `p-${id}` });

Deno.test("coalescedEmailOutbox() records results arriving within the window in one call", async () => {
  const inner = recorder();
  const outbox = coalescedEmailOutbox(inner, 20);
  await Promise.all([outbox.recordResults([sent("a"), sent("b")]), outbox.recordResults([sent("c")])]);
  assert.deepEqual(inner.calls, [[sent("a"), sent("b"), sent("c")]]);
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
