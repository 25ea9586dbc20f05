/**
 * The deadline bounds the outbox's waits too (contract, "Under concurrency, at scale, on a slow day"):
 * record_email_results never waits for a row another transaction holds, and claim_due_emails's waits (the
 * claimer before it, a batch's rows) end by its deadline. The way it broke: another session held an outbox
 * row, and the results call that concurrent orders share waited for it until the 8 s statement timeout, 4.6 s
 * past the requests' deadlines, then recorded nothing. PostgreSQL only: PGlite runs one transaction at a time.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import type { EmailResult, OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPostgres } from "./support/databases.ts";
import { msPast, startWatchedCall, transactionEnd, waitUntilWaiting } from "./support/lock_waits.ts";
import { createOrderWithEmails } from "./support/outbox_orders.ts";
import { holdLock } from "./support/postgres_faults.ts";

/** The most a transaction may stay open past its request's deadline. */
const GRACE_MS = 500;

const postgres = await sharedPostgres();
const test = (name: string, fn: (db: SqlDatabase) => Promise<void>) =>
  Deno.test({
    name: `[postgres] ${name}`,
    ignore: postgres === null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => fn(postgres!),
  });

/** Calls record_email_results as service_role, as the senders do through PostgREST. */
async function recordResults(db: SqlDatabase, results: EmailResult[], deadline?: string) {
  const [row] = await db.asRole(
    "service_role",
    (s) =>
      s.query<{ recorded: string }>(
        "select public.record_email_results($1::text::jsonb, $2)::text as recorded",
        [
          JSON.stringify(results),
          deadline ?? null,
        ],
      ),
  );
  return JSON.parse(row.recorded) as { id: string; status: string }[];
}

/** Starts claim_due_emails (batches of 10, none due under a claim younger than 300 s) on its own connection. */
function startClaim(db: SqlDatabase, deadline: string) {
  return startWatchedCall(
    db,
    "service_role",
    "select public.claim_due_emails(10, 10, 0, 300, 60000, 0, $1)",
    [deadline],
  );
}

/** How late claim_due_emails's transaction ended, queued behind another session's `hold`, and how it failed. */
async function claimBehind(
  db: SqlDatabase,
  hold: { statement: string; params: unknown[] },
  budgetMs: number,
) {
  const lock = await holdLock(db, hold.statement, hold.params);
  const deadline = new Date(Date.now() + budgetMs).toISOString();
  const claim = await startClaim(db, deadline);
  try {
    await waitUntilWaiting(db, claim.pid);
    const late = msPast(await transactionEnd(db, claim.pid), deadline);
    const outcome = await claim.outcome;
    return { late, code: outcome.ok ? "committed" : outcome.code };
  } finally {
    await lock.release();
    await claim.close();
  }
}

const sent = (email: OutboxEmail): EmailResult => ({
  id: email.id,
  claimToken: email.claimToken,
  attempts: 1,
  providerId: `re_${email.id.slice(0, 8)}`,
});

// pins a past bug: the shared results call waited for a held row until the statement timeout
test("record_email_results() records at once the rows it can lock, and leaves the one another session holds claimed as it was", async (db) => {
  const [buyer, seller] = await createOrderWithEmails(db, await createTestStore(db));
  const lock = await holdLock(db, "select 1 from public.email_outbox where id = $1 for update", [seller.id]);
  let recorded;
  try {
    // answered while the row is still held: the call did not wait for it
    recorded = await recordResults(
      db,
      [sent(buyer), sent(seller)],
      new Date(Date.now() + 6_000).toISOString(),
    );
  } finally {
    await lock.release();
  }
  assert.deepEqual(recorded, [{ id: buyer.id, status: "sent" }]);
  const rows = await db.query<{ id: string; status: string; claim_token: string | null }>(
    "select id::text, status, claim_token::text from public.email_outbox where id = any($1::uuid[]) order by kind",
    [[buyer.id, seller.id]],
  );
  assert.deepEqual(rows.map((r) => [r.id, r.status, r.claim_token]), [
    [buyer.id, "sent", null],
    [seller.id, "sending", seller.claimToken],
  ]);
  // its claimer's result, sent again once the row is free, is recorded
  assert.deepEqual(await recordResults(db, [sent(seller)]), [{ id: seller.id, status: "sent" }]);
});

test("claim_due_emails()'s transaction is gone within 500 ms of its deadline while another claimer holds the claim queue", async (db) => {
  const { late, code } = await claimBehind(db, {
    statement: "select pg_advisory_xact_lock(hashtextextended('public.claim_due_emails', 0))",
    params: [],
  }, 1_500);
  assert.ok(late <= GRACE_MS, `its transaction ended ${late} ms after its deadline`);
  assert.ok(code === "55P03" || code === "OCT00", `failed with ${code}`);
});

test("claim_due_emails()'s transaction is gone within 500 ms of its deadline while another session holds a row of the batch it claims, and it claims the batch whole once the row is free", async (db) => {
  const emails = await createOrderWithEmails(db, await createTestStore(db));
  // refused for sure: failed, due at once; then claimed as one new batch whose claim expires at once
  await recordResults(
    db,
    emails.map((e) => ({
      id: e.id,
      claimToken: e.claimToken,
      attempts: 1,
      error: "resend 422",
      maybeDelivered: false,
    })),
  );
  const [first] = await db.asRole(
    "service_role",
    (s) =>
      s.query<{ claimed: string }>("select public.claim_due_emails(10, 10, 0, 300, 1, 0)::text as claimed"),
  );
  const batch = (JSON.parse(first.claimed) as { emails: OutboxEmail[] }).emails;
  assert.deepEqual(batch.map((e) => e.id).sort(), emails.map((e) => e.id).sort());
  await new Promise((resolve) => setTimeout(resolve, 20));

  const { late, code } = await claimBehind(db, {
    statement: "select 1 from public.email_outbox where id = $1 for update",
    params: [batch[1].id],
  }, 1_500);
  assert.ok(late <= GRACE_MS, `its transaction ended ${late} ms after its deadline`);
  assert.ok(code === "55P03" || code === "OCT00", `failed with ${code}`);

  // nothing was claimed by the call that gave up; the next claims the batch whole
  const again = await startClaim(db, new Date(Date.now() + 3_000).toISOString());
  try {
    const outcome = await again.outcome;
    assert.ok(outcome.ok);
    const claimed = (outcome.rows[0] as { claim_due_emails: { emails: OutboxEmail[] } }).claim_due_emails;
    assert.deepEqual(claimed.emails.map((e) => e.id).sort(), emails.map((e) => e.id).sort());
  } finally {
    await again.close();
  }
});
