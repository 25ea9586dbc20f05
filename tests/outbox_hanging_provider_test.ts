/**
 * The drain under a provider that accepts connections and never answers (contract, "The outbox drains within
 * Supabase's limits"). Pins issue 17: one run took 378 s for 12 rows, the next run took the same rows over,
 * their results were discarded and no row ever became dead. Now a run stops taking work at its budget and
 * answers within it plus one send's time-out, a hung request is a failed send when its time-out ends, each
 * result is recorded as it comes, and a claim expires with its run. Through supabase-js and the PostgREST
 * stand-in, the real Resend SDK against the fake Resend over loopback, on PGlite and PostgreSQL, with small
 * budgets and time-outs. The tests of one database share it and run in order; each leaves no row due.
 */
import assert from "node:assert/strict";
import { startFakeResend } from "../local/fake_resend.ts";
import { drainOutbox, runOutboxDrain } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { CLAIM_NOW, createOrderWithEmails, serveOutbox } from "./support/outbox_orders.ts";
import { renderClaimedEmail } from "../supabase/functions/_shared/email/email_results.ts";
import type { EmailMessage } from "../supabase/functions/_shared/email/mailer.ts";
import type { OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";

const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
const purgeExpiredGuards = () => Promise.resolve({ idempotencyKeys: 0, rateLimitWindows: 0 });
const cancelUnpaidOrders = () => Promise.resolve({ cancelled: [], emails: [], skipped: [] });
/** Everything due at once: failed rows, and the request path's claims. */
const DUE_NOW = { minAgeSeconds: 0, staleAfterSeconds: 0 };

/** The outbox state of some orders' rows, by order then kind. */
function rowsOf(db: SqlDatabase, orderIds: string[]) {
  return db.query<
    {
      kind: string;
      status: string;
      failures: number;
      delivery_unknown: boolean;
      claim_token: string | null;
      last_error: string | null;
      provider_id: string | null;
    }
  >(
    `select kind, status, failures, delivery_unknown, claim_token::text, last_error, provider_id
     from public.email_outbox where order_id = any($1::uuid[]) order by order_id, kind`,
    [orderIds],
  );
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("runOutboxDrain() against a provider that hangs makes rows dead after 10 failed sends, as one that errors", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    fake.always("hang");
    const served = serveOutbox(db);
    try {
      const emails = await createOrderWithEmails(db, store); // the request path's sender died before sending
      const orderIds = [emails[0].orderId];
      const deps = {
        mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 400 }),
        outbox: served.outbox,
        render,
        log: () => {},
        limits: { budgetMs: 2_000, sendTimeoutMs: 400, requestsPerSecond: 50 },
        cancelUnpaidOrders,
        purgeExpiredGuards,
      };
      for (let send = 1; send <= 10; send++) {
        const report = await runOutboxDrain(deps, DUE_NOW);
        assert.deepEqual(
          [report.emails.claimed, report.emails.failed, report.emails.dead, report.emails.ignored],
          [2, 2, send === 10 ? 2 : 0, 0],
          `send ${send}`,
        );
        assert.deepEqual(
          (await rowsOf(db, orderIds)).map((r) => [r.status, r.failures]),
          [[send === 10 ? "dead" : "failed", send], [send === 10 ? "dead" : "failed", send]],
        );
      }
      const rows = await rowsOf(db, orderIds);
      assert.ok(rows.every((r) => r.delivery_unknown && r.claim_token === null), JSON.stringify(rows));
      assert.ok(rows.every((r) => /timed out|network/.test(r.last_error ?? "")), JSON.stringify(rows));
      // each row went alone under its own key (its requests may have reached the provider): 10 requests each
      assert.deepEqual(
        emails.map((e) =>
          fake.requests.filter((r) => r.idempotencyKey === `order/${e.orderId}/${e.kind}`).length
        ),
        [10, 10],
      );
      const after = await runOutboxDrain(deps, DUE_NOW);
      assert.equal(after.emails.claimed, 0, "a dead row is never claimed");
      assert.ok(after.deadEmails.emails.some((e) => e.orderId === orderIds[0]));
    } finally {
      await served.close();
      await fake.close();
    }
  });

  test("a run's claim expires with it: the next run takes the rows over, sends nothing twice, and the late result is refused", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    const served = serveOutbox(db);
    try {
      // X: claimed by the request path, whose sender died (sent alone from now on); Y: refused once for sure
      const x = await createOrderWithEmails(db, store);
      const y = await createOrderWithEmails(db, store);
      await served.outbox.recordResults(
        y.map((e) => ({
          id: e.id,
          claimToken: e.claimToken,
          attempts: 1,
          error: "resend 429",
          maybeDelivered: false,
        })),
      );
      const orderIds = [x[0].orderId, y[0].orderId];

      // run A claims both (its claims hold 300 ms), sends them, and its process stalls past its claims: the
      // provider delivers every request and never answers
      fake.always("act-then-hang");
      const a = [
        ...(await served.outbox.claimDue({ ...CLAIM_NOW, claimMs: 300 })).emails,
        ...(await served.outbox.claimDue({ ...CLAIM_NOW, claimMs: 300 })).emails,
      ].filter((e) => orderIds.includes(e.orderId));
      assert.deepEqual(
        a.map((e) => [e.orderId === x[0].orderId ? "x" : "y", e.batchKey ? "batch" : "alone"]),
        [
          ["x", "alone"],
          ["x", "alone"],
          ["y", "batch"],
          ["y", "batch"],
        ],
      );
      const stalled = createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 1_500 });
      const messages = new Map<string, EmailMessage>();
      for (const email of a) {
        messages.set(email.id, (await renderClaimedEmail(email, render)) as EmailMessage);
      }
      const [ax, ay] = [a.slice(0, 2), a.slice(2)];
      const sendsOfA = Promise.all([
        ...ax.map((e) => stalled.send(messages.get(e.id)!, `order/${e.orderId}/${e.kind}`)),
        stalled.sendBatch!(ay.map((e) => messages.get(e.id)!), ay[0].batchKey!),
      ]);
      await _until(() => fake.delivered.length >= 4);
      await new Promise((resolve) => setTimeout(resolve, 400)); // A's claims expire

      // run B takes the rows over while A's requests are still under way
      fake.always("ok");
      const b = await drainOutbox({
        mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url }),
        outbox: served.outbox,
        render,
        log: () => {},
        limits: { budgetMs: 500, sendTimeoutMs: 500, requestsPerSecond: 50 },
      }, DUE_NOW);
      assert.ok(b.claimed >= 4 && b.sent === b.claimed, JSON.stringify(b));
      const rows = await rowsOf(db, orderIds);
      assert.deepEqual(rows.map((r) => r.status), ["sent", "sent", "sent", "sent"]);

      // each e-mail delivered once: B's requests carried A's keys and bodies, and the provider answered them
      // with the ids of A's deliveries
      const delivered = (e: OutboxEmail) => fake.delivered.filter((d) => d.id === _providerId(rows, a, e));
      assert.deepEqual(a.map((e) => delivered(e).length), [1, 1, 1, 1]);
      const ofOrder = (emails: OutboxEmail[]) =>
        fake.delivered.filter((d) =>
          emails.some((e) => e.to === d.to && d.subject.includes(e.payload.orderNumber))
        );
      assert.equal(ofOrder(x).length, 2);
      assert.equal(ofOrder(y).length, 2);

      // A wakes up: its requests time out, and its results come after its claims expired: refused
      const answers = await sendsOfA;
      assert.ok(answers.every((answer) => !answer.ok));
      const late = await served.outbox.recordResults(
        a.map((e) => ({
          id: e.id,
          claimToken: e.claimToken,
          attempts: 1,
          error: "time-out",
          maybeDelivered: true,
        })),
      );
      assert.deepEqual(late, []);
      assert.deepEqual((await rowsOf(db, orderIds)).map((r) => r.status), ["sent", "sent", "sent", "sent"]);
    } finally {
      await served.close();
      await fake.close();
    }
  });

  test("runOutboxDrain() against a provider that hangs stops taking work at its budget and answers within it plus one send's time-out", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    fake.always("hang");
    const served = serveOutbox(db);
    try {
      const emails: OutboxEmail[] = [];
      for (let i = 0; i < 15; i++) emails.push(...await createOrderWithEmails(db, store));
      const orderIds = [...new Set(emails.map((e) => e.orderId))];
      const limits = { budgetMs: 800, sendTimeoutMs: 400, requestsPerSecond: 20 };
      const started = performance.now();
      const report = await runOutboxDrain({
        mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: limits.sendTimeoutMs }),
        outbox: served.outbox,
        render,
        log: () => {},
        limits,
        cancelUnpaidOrders,
        purgeExpiredGuards,
      }, DUE_NOW);
      const elapsed = performance.now() - started;
      // 30 rows due, 20 requests a second for 0.8 s: at most 17 taken, each failed when its time-out ended
      // (before: one at a time, 3 tries of a time-out each, 14 s and more)
      assert.ok(
        elapsed < limits.budgetMs + limits.sendTimeoutMs + 1_000,
        `the run took ${elapsed.toFixed(0)} ms`,
      );
      const { claimed, failed, sent, released } = report.emails;
      assert.ok(claimed >= 10 && claimed <= 17, `claimed ${claimed}`);
      // a row claimed whose turn would have come after the budget is handed back, never sent: the claim's and
      // the rows' read's round trips (each request's rows are read right before it) take a turn or two each
      assert.deepEqual([failed + released, sent], [claimed, 0]);
      assert.ok(released <= 4, `released ${released}`);
      const rows = await rowsOf(db, orderIds);
      const tried = rows.filter((r) => r.status === "failed");
      assert.equal(tried.length, failed, "every request's result recorded");
      assert.ok(tried.every((r) => r.failures === 1 && r.delivery_unknown && r.claim_token === null));
      assert.equal(rows.filter((r) => r.status === "pending" && r.failures === 0).length, released);
      // the rest were never taken: still the request path's claims, for the next run
      assert.equal(rows.filter((r) => r.status === "sending").length, 30 - claimed);
      assert.equal(fake.requests.length, failed);
    } finally {
      await served.close();
      await fake.close();
    }
  });
}

/** The provider id the rows recorded for `email`. */
function _providerId(
  rows: { provider_id: string | null }[],
  claimed: OutboxEmail[],
  email: OutboxEmail,
): string | null {
  const sorted = [...claimed].sort((p, q) =>
    p.orderId.localeCompare(q.orderId) || p.kind.localeCompare(q.kind)
  );
  return rows[sorted.findIndex((e) => e.id === email.id)].provider_id;
}

async function _until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), "timed out waiting");
}
