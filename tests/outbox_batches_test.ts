/**
 * A backlog drains at the provider's own rate, each e-mail once (contract, "The outbox drains within
 * Supabase's limits"): e-mails no request may have delivered go up to 100 a request through Resend's batch
 * endpoint, under one idempotency key for the batch; a batch whose answer was lost is sent again whole under
 * its key, never in another grouping; an e-mail whose own earlier request may have delivered it goes alone
 * under its own key; and a 429's `retry-after` holds every request of the run. Through supabase-js and the
 * PostgREST stand-in, the real Resend SDK against the fake Resend, on PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { type FakeResend, startFakeResend } from "../local/fake_resend.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createDatabaseClient } from "../supabase/functions/_shared/database_client.ts";
import {
  type DrainLimits,
  drainOutbox,
  runOutboxDrain,
} from "../supabase/functions/_shared/email/outbox_drain.ts";
import { supabaseCancelUnpaidOrders } from "../supabase/functions/_shared/orders/unpaid_orders.ts";
import type { OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { ageOrder } from "./support/order_age.ts";
import { createOrderWithEmails, serveOutbox } from "./support/outbox_orders.ts";

const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
const DUE_NOW = { minAgeSeconds: 0, staleAfterSeconds: 0 };

/**
 * Orders whose request path failed to send: refused for sure (a 429: no request may have delivered them), or
 * with its answer lost (`maybeDelivered`).
 */
async function ordersWithFailedEmails(
  db: SqlDatabase,
  outbox: ReturnType<typeof serveOutbox>["outbox"],
  store: TestStore,
  count: number,
  maybeDelivered: boolean,
): Promise<OutboxEmail[]> {
  const emails: OutboxEmail[] = [];
  for (let i = 0; i < count; i++) emails.push(...await createOrderWithEmails(db, store));
  await outbox.recordResults(
    emails.map((e) => ({ id: e.id, claimToken: e.claimToken, attempts: 3, error: "resend", maybeDelivered })),
  );
  return emails;
}

/** How often each e-mail reached the fake's inboxes. */
function deliveries(fake: FakeResend, emails: OutboxEmail[]): number[] {
  return emails.map((e) =>
    fake.delivered.filter((d) =>
      d.to === e.to && d.subject.includes(e.payload.orderNumber) &&
      d.subject.startsWith(e.kind === "buyer" ? "Your" : "New")
    ).length
  );
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  const drain = (fake: FakeResend, limits: Partial<DrainLimits> = {}) =>
    drainOutbox({
      mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url }),
      outbox: served.outbox,
      render,
      log: () => {},
      limits: { budgetMs: 10_000, sendTimeoutMs: 2_000, requestsPerSecond: 50, ...limits },
    }, DUE_NOW);
  const served = serveOutbox(db);

  test("drainOutbox() sends e-mails no request may have delivered in one batch request, and those that may have been alone under their own keys", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    try {
      const fresh = await ordersWithFailedEmails(db, served.outbox, store, 3, false);
      const doubtful = await ordersWithFailedEmails(db, served.outbox, store, 1, true);
      const summary = await drain(fake);
      assert.deepEqual([summary.claimed, summary.sent, summary.failed], [8, 8, 0]);

      const batches = fake.requests.filter((r) => r.path === "/emails/batch");
      assert.equal(batches.length, 1);
      assert.match(batches[0].idempotencyKey!, /^outbox\/batch\/[0-9a-f-]{36}$/);
      assert.equal(batches[0].batchValidation, "strict");
      assert.equal((batches[0].body as unknown[]).length, 6);
      assert.deepEqual(
        fake.requests.filter((r) => r.path === "/emails").map((r) => r.idempotencyKey).sort(),
        doubtful.map((e) => `order/${e.orderId}/${e.kind}`).sort(),
      );
      assert.deepEqual(deliveries(fake, [...fresh, ...doubtful]), [1, 1, 1, 1, 1, 1, 1, 1]);
      const ids = await db.query<{ provider_id: string }>(
        "select provider_id from public.email_outbox where id = any($1::uuid[])",
        [fresh.map((e) => e.id)],
      );
      assert.equal(new Set(ids.map((r) => r.provider_id)).size, 6);
    } finally {
      await fake.close();
    }
  });

  // the case the batch endpoint was refused for before: a batch accepted whose answer was lost must not be
  // sent again in another grouping, under another key
  test("drainOutbox() sends a batch whose answer was lost again whole under its own key, in no other grouping: each e-mail once", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    try {
      const first = await ordersWithFailedEmails(db, served.outbox, store, 3, false);
      fake.script("act-then-fail"); // Resend sends the batch and answers 500
      const lost = await drain(fake);
      assert.deepEqual([lost.claimed, lost.failed], [6, 6]);
      assert.deepEqual(deliveries(fake, first), [1, 1, 1, 1, 1, 1]);

      const later = await ordersWithFailedEmails(db, served.outbox, store, 1, false);
      const summary = await drain(fake);
      assert.deepEqual([summary.claimed, summary.sent], [8, 8]);
      const [original, again, next] = fake.requests.filter((r) => r.path === "/emails/batch");
      assert.equal(again.idempotencyKey, original.idempotencyKey);
      assert.deepEqual(again.body, original.body);
      assert.notEqual(next.idempotencyKey, original.idempotencyKey);
      assert.equal((next.body as unknown[]).length, 2, "the new batch holds only the new e-mails");
      assert.deepEqual(deliveries(fake, [...first, ...later]), [1, 1, 1, 1, 1, 1, 1, 1]);
      const rows = await db.query<{ status: string; provider_id: string }>(
        "select status, provider_id from public.email_outbox where id = any($1::uuid[])",
        [first.map((e) => e.id)],
      );
      const delivered = new Set(fake.delivered.map((d) => d.id));
      assert.ok(rows.every((r) => r.status === "sent" && delivered.has(r.provider_id)));
    } finally {
      await fake.close();
    }
  });

  test("drainOutbox() faster than the account's rate limit waits each 429's retry-after and sends each e-mail once", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend({ rateLimit: { perSecond: 2 } });
    try {
      const emails = await ordersWithFailedEmails(db, served.outbox, store, 3, true); // 6 requests, alone
      const summary = await drain(fake, { requestsPerSecond: 10 });
      assert.deepEqual([summary.claimed, summary.sent, summary.failed], [6, 6, 0]);
      assert.deepEqual(deliveries(fake, emails), [1, 1, 1, 1, 1, 1]);
      // at 10 a second against 2: refused at the 3rd and the 5th request, each time waiting its retry-after
      // (1 s) before the next; a sender that kept its own pace would be refused about 15 times
      assert.ok(
        fake.stats.rateLimited >= 1 && fake.stats.rateLimited <= 3,
        `${fake.stats.rateLimited} refused`,
      );
    } finally {
      await fake.close();
    }
  });

  test("runOutboxDrain() sends the buyers' e-mails of the unpaid orders it cancels in one batch request, under a key written on their rows first", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    try {
      const orderIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { response } = await callCreateOrder(db, createOrderPayload(store)); // a gateway order
        await ageOrder(db, response.orderId, 45);
        orderIds.push(response.orderId);
      }
      const client = createDatabaseClient(served.url, served.serviceKey);
      const report = await runOutboxDrain({
        mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url }),
        outbox: served.outbox,
        render,
        log: () => {},
        limits: { budgetMs: 10_000, sendTimeoutMs: 2_000, requestsPerSecond: 50 },
        cancelUnpaidOrders: supabaseCancelUnpaidOrders(
          client,
          { gatewayMinutes: 30, upiDirectHours: 72 },
          6_000,
        ),
        purgeExpiredGuards: () => Promise.resolve({ idempotencyKeys: 0, rateLimitWindows: 0 }),
      });
      assert.deepEqual([...report.unpaidOrders!.orderIds].sort(), [...orderIds].sort());
      assert.deepEqual([report.emails.claimed, report.emails.sent], [3, 3]);
      // one request for the three (they went one request each before), under the key the rows carry
      assert.deepEqual(fake.requests.map((r) => [r.path, (r.body as unknown[]).length]), [[
        "/emails/batch",
        3,
      ]]);
      const rows = await db.query<{ status: string; batch_key: string | null }>(
        `select status, batch_key from public.email_outbox
         where order_id = any($1::uuid[]) and kind = 'status_cancelled'`,
        [orderIds],
      );
      assert.deepEqual(rows.map((r) => [r.status, r.batch_key]), [
        ["sent", fake.requests[0].idempotencyKey],
        ["sent", fake.requests[0].idempotencyKey],
        ["sent", fake.requests[0].idempotencyKey],
      ]);
      assert.match(fake.requests[0].idempotencyKey!, /^outbox\/batch\/[0-9a-f-]{36}$/);
      assert.equal(fake.delivered.filter((d) => d.subject.endsWith("was cancelled")).length, 3);
      // their confirmations, still the request path's claims, leave no row due for the next test
      await drain(fake);
    } finally {
      await fake.close();
    }
  });

  test("drainOutbox() hands back what a 429 refused when its retry-after outlasts the run: no failure counted", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    try {
      const emails = await ordersWithFailedEmails(db, served.outbox, store, 1, false); // one batch
      fake.always({ status: 429, retryAfter: 5 });
      const summary = await drain(fake, { budgetMs: 1_000 });
      assert.deepEqual([summary.claimed, summary.sent, summary.failed, summary.released], [2, 0, 0, 2]);
      const rows = await db.query<{ status: string; failures: number; attempts: number; due_now: boolean }>(
        `select status, failures, attempts, claimed_at is null as due_now from public.email_outbox
         where id = any($1::uuid[])`,
        [emails.map((e) => e.id)],
      );
      // failed once before (3 requests), now one more request refused: still one failure, due at once
      assert.deepEqual(rows.map((r) => [r.status, r.failures, r.attempts, r.due_now]), [
        ["failed", 1, 4, true],
        ["failed", 1, 4, true],
      ]);
    } finally {
      await fake.close();
    }
  });

  Deno.test({
    name: `[${name}] (closes the outbox server)`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => served.close(),
  });
}
