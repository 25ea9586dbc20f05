/**
 * The outbox's claim tokens and dead rows in SQL (contract, "The outbox on Supabase"): only a row's current
 * claimer records its result, while its claim holds; after 10 failed attempts a row is dead, kept and never
 * claimed again; a drain's claim expires with its run; a row claimed and never sent is handed back.
 * Called through supabase-js and the PostgREST stand-in as the senders call them, on PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import type { EmailResult, OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { claimAll, createOrderWithEmails, serveOutbox } from "./support/outbox_orders.ts";

function failure(email: OutboxEmail, attempts = 1, claimToken = email.claimToken): EmailResult {
  return { id: email.id, claimToken, attempts, error: "resend 422 validation_error", maybeDelivered: false };
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** The rows of these e-mails: status, attempts, claim token and provider id. */
  const rowsOf = (emails: OutboxEmail[]) =>
    db.query<
      { id: string; status: string; attempts: number; claim_token: string | null; provider_id: string | null }
    >(
      `select id::text, status, attempts, claim_token::text, provider_id from public.email_outbox
       where id = any($1::uuid[]) order by kind`,
      [emails.map((e) => e.id)],
    );

  test("create_order() claims its two e-mails under a claim token each, the one the rows hold", async () => {
    const store = await createTestStore(db);
    const emails = await createOrderWithEmails(db, store);
    const rows = await rowsOf(emails);
    assert.deepEqual(
      rows.map((r) => [r.status, r.claim_token]),
      emails.map((e) => ["sending", e.claimToken]),
    );
    assert.match(emails[0].claimToken, /^[0-9a-f-]{36}$/);
    assert.notEqual(emails[0].claimToken, emails[1].claimToken);
  });

  test("record_email_results() ignores a stale claimer's late result; the current claimer's stands", async () => {
    const store = await createTestStore(db);
    const served = serveOutbox(db);
    try {
      const stale = await createOrderWithEmails(db, store); // the request path's claim, then it stalls
      const ours = (rows: OutboxEmail[]) => rows.filter((row) => stale.some((e) => e.id === row.id));
      const current = ours((await claimAll(served.outbox)).emails); // a drain re-claims the rows
      assert.equal(current.length, 2);
      assert.ok(current.every((row) => !stale.some((e) => e.claimToken === row.claimToken)));

      // the stale claimer answers while the drain is still sending: ignored, the drain's claim untouched
      assert.deepEqual(await served.outbox.recordResults(stale.map((e) => failure(e))), []);
      assert.deepEqual(
        (await rowsOf(stale)).map((r) => [r.status, r.attempts, r.claim_token]),
        current.sort((a, b) => a.kind.localeCompare(b.kind)).map((e) => ["sending", 0, e.claimToken]),
      );

      const recorded = await served.outbox.recordResults(
        current.map((e) => ({ id: e.id, claimToken: e.claimToken, attempts: 1, providerId: `p-${e.kind}` })),
      );
      assert.deepEqual(recorded.map((r) => r.status), ["sent", "sent"]);
      // and once more after the drain recorded: still ignored, the row stays sent with the drain's id
      assert.deepEqual(await served.outbox.recordResults(stale.map((e) => failure(e))), []);
      assert.deepEqual(
        (await rowsOf(stale)).map((r) => [r.status, r.attempts, r.claim_token, r.provider_id]),
        [
          ["sent", 1, null, "p-buyer"],
          ["sent", 1, null, "p-seller"],
        ],
      );
    } finally {
      await served.close();
    }
  });

  test("record_email_results() makes a row dead at its 10th failed send; claim_due_emails() never claims it again", async () => {
    const store = await createTestStore(db);
    const served = serveOutbox(db);
    try {
      const [buyer, seller] = await createOrderWithEmails(db, store);
      // the request path's send: 3 tries to the provider, one failed send
      assert.deepEqual(
        (await served.outbox.recordResults([failure(buyer, 3), failure(seller, 3)])).map((r) => r.status),
        ["failed", "failed"],
      );

      for (let send = 2; send <= 10; send++) {
        const claimed = (await claimAll(served.outbox)).emails.filter((row) => row.orderId === buyer.orderId)
          .sort((a, b) => a.kind.localeCompare(b.kind));
        assert.deepEqual(claimed.map((row) => [row.kind, row.attempts]), [["buyer", send + 1], [
          "seller",
          send + 1,
        ]]);
        const [b, s] = claimed;
        // the seller's mail goes through at the 10th send; the buyer's fails a 10th time
        const results = send === 10
          ? [failure(b), { id: s.id, claimToken: s.claimToken, attempts: 1, providerId: "p-seller" }]
          : [failure(b), failure(s)];
        const recorded = await served.outbox.recordResults(results);
        const expected = send === 10 ? ["dead", "sent"] : ["failed", "failed"];
        assert.deepEqual([b, s].map((row) => recorded.find((r) => r.id === row.id)?.status), expected);
      }
      const rows = await db.query<{ status: string; failures: number; attempts: number; claim_token: null }>(
        `select status, failures, attempts, claim_token from public.email_outbox where order_id = $1 order by kind`,
        [buyer.orderId],
      );
      assert.deepEqual(rows.map((r) => [r.status, r.failures, r.attempts, r.claim_token]), [
        ["dead", 10, 12, null],
        ["sent", 9, 12, null],
      ]);
      const again = await claimAll(served.outbox);
      assert.equal(
        again.emails.filter((row) => row.orderId === buyer.orderId).length,
        0,
        "a dead row is never claimed",
      );
      const dead = await served.outbox.deadEmails(1000);
      assert.ok(dead.total >= 1);
      assert.deepEqual(
        dead.emails.filter((e) => e.orderId === buyer.orderId).map((
          e,
        ) => [e.id, e.kind, e.failures, e.attempts]),
        [[buyer.id, "buyer", 10, 12]],
      );
    } finally {
      await served.close();
    }
  });

  test("claim_due_emails() waits longer after each failed send: the minimum age doubles per failure", async () => {
    const store = await createTestStore(db);
    const served = serveOutbox(db);
    try {
      const [buyer] = await createOrderWithEmails(db, store);
      await served.outbox.recordResults([failure(buyer)]);
      const due = async (failures: number, lastSendMinutesAgo: number) => {
        await db.query(
          `update public.email_outbox set failures = $2, claimed_at = now() - make_interval(secs => $3)
           where id = $1`,
          [buyer.id, failures, lastSendMinutesAgo * 60],
        );
        const claimed = await claimAll(served.outbox, { minAgeSeconds: 60, staleAfterSeconds: 300 });
        const ours = claimed.emails.find((row) => row.id === buyer.id);
        if (ours) {
          // hand the claim back as a failure that does not count, so the next case starts from 'failed'
          await db.query(
            "update public.email_outbox set status = 'failed', claim_token = null, claim_expires_at = null where id = $1",
            [buyer.id],
          );
        }
        return ours !== undefined;
      };
      // [failures so far, minutes since the last send, due?]: 1 → 1 min, 3 → 4 min, 9 and more → 256 min
      const cases: [number, number, boolean][] = [
        [1, 0.5, false],
        [1, 1.5, true],
        [3, 3, false],
        [3, 5, true],
        [9, 250, false],
        [9, 260, true],
      ];
      for (const [failures, minutes, expected] of cases) {
        assert.equal(await due(failures, minutes), expected, `${failures} failures, ${minutes} min ago`);
      }
    } finally {
      await served.close();
    }
  });

  test("email_outbox refuses a 'sending' row without a claim token", async () => {
    const store = await createTestStore(db);
    const [buyer] = await createOrderWithEmails(db, store);
    await assert.rejects(
      db.query("update public.email_outbox set claim_token = null where id = $1", [buyer.id]),
      (error: { code?: string }) => error.code === "23514",
    );
  });

  test("claim_due_emails() never takes a drain's row while its run's claim holds, and takes it once expired", async () => {
    const store = await createTestStore(db);
    const served = serveOutbox(db);
    try {
      const emails = await createOrderWithEmails(db, store);
      const mine = (claimed: OutboxEmail[]) => claimed.filter((e) => emails.some((m) => m.id === e.id));
      // a run claims the rows until its end, 300 ms from now
      const first = mine((await claimAll(served.outbox, { claimMs: 300 })).emails);
      assert.equal(first.length, 2);
      // another run, told that every request-path claim is stale: the run's claims still hold
      assert.deepEqual(mine((await claimAll(served.outbox)).emails), []);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const second = mine((await claimAll(served.outbox)).emails);
      assert.deepEqual(second.map((e) => e.id).sort(), first.map((e) => e.id).sort());
      // the first run's result comes after its claim expired: refused, even had nobody claimed the rows since
      assert.deepEqual(await served.outbox.recordResults(first.map((e) => failure(e))), []);
    } finally {
      await served.close();
    }
  });

  test("record_email_results() hands a released row back unsent: no attempt or failure counted, its new batch dissolved", async () => {
    const store = await createTestStore(db);
    const served = serveOutbox(db);
    try {
      const emails = await createOrderWithEmails(db, store);
      await served.outbox.recordResults(emails.map((e) => failure(e))); // refused for sure: failed, fresh
      const claimed = (await claimAll(served.outbox)).emails.filter((e) => emails.some((m) => m.id === e.id));
      assert.equal(claimed.length, 2);
      assert.ok(claimed.every((e) => e.batchKey && e.batchKey === claimed[0].batchKey), "one new batch");
      const recorded = await served.outbox.recordResults(
        claimed.map((e) => ({ id: e.id, claimToken: e.claimToken, released: true as const })),
      );
      assert.deepEqual(recorded.map((r) => r.status), ["failed", "failed"]);
      const rows = await db.query<
        { status: string; attempts: number; failures: number; batch_key: string | null; claim_token: null }
      >(
        `select status, attempts, failures, batch_key, claim_token from public.email_outbox
         where id = any($1::uuid[])`,
        [emails.map((e) => e.id)],
      );
      assert.deepEqual(rows.map((r) => [r.status, r.attempts, r.failures, r.batch_key, r.claim_token]), [
        ["failed", 1, 1, null, null],
        ["failed", 1, 1, null, null],
      ]);
    } finally {
      await served.close();
    }
  });
}
