import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { drainOutbox } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { sendOrderEmails } from "../supabase/functions/_shared/email/outbox_sender.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { sharedPglite, sharedPostgres } from "./support/databases.ts";
import { type FakeResend, startFakeResend } from "../local/fake_resend.ts";
import { createOrderWithEmails, outboxRows, serveOutbox } from "./support/outbox_orders.ts";
import { fakeSleep } from "./support/recording_outbox.ts";

const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
const databases: [string, () => Promise<SqlDatabase | null>][] = [["PGlite", sharedPglite], [
  "PostgreSQL",
  sharedPostgres,
]];

function senderDeps(fake: FakeResend, outbox: ReturnType<typeof serveOutbox>["outbox"]) {
  const { sleep, waits } = fakeSleep();
  return {
    waits,
    deps: {
      mailer: createResendMailer({ apiKey: "re_test", baseUrl: fake.url }),
      outbox,
      render,
      sleep,
      log: () => {},
    },
  };
}

/** How often each of the given messages reached the fake, by recipient and subject. */
function deliveriesOf(fake: FakeResend, expected: { to: string; orderNumber: string; kind: string }[]) {
  return expected.map(({ to, orderNumber, kind }) =>
    fake.delivered.filter((d) =>
      d.to === to && d.subject.includes(orderNumber) &&
      d.subject.startsWith(kind === "buyer" ? "Your" : "New")
    ).length
  );
}

for (const [dbName, open] of databases) {
  Deno.test({
    name: `[${
      dbName === "PGlite" ? "pglite" : "postgres"
    }] sendOrderEmails() on ${dbName} leaves rows failed when the provider is down; drainOutbox() then sends each once`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const db = await open();
      if (!db) return void console.warn(`notice: ${dbName} unreachable, test skipped`);
      const fake = startFakeResend();
      const served = serveOutbox(db);
      try {
        const emails = await createOrderWithEmails(db);
        const orderIds = [emails[0].orderId];

        await t.step("provider down for good: both rows failed with the error and 3 attempts", async () => {
          await fake.down();
          const { deps, waits } = senderDeps(fake, served.outbox);
          const summary = await sendOrderEmails(emails, deps);
          assert.deepEqual(summary, { claimed: 2, sent: 0, failed: 2, dead: 0, ignored: 0 });
          assert.deepEqual(waits, [500, 500, 1000, 1000]);
          const rows = await outboxRows(db, orderIds);
          assert.deepEqual(rows.map((r) => [r.kind, r.status, r.attempts, r.provider_id]), [
            ["buyer", "failed", 3, null],
            ["seller", "failed", 3, null],
          ]);
          assert.ok(rows.every((r) => r.last_error?.startsWith("resend network application_error")));
        });

        await t.step("provider back: the drain sends each exactly once, a second drain nothing", async () => {
          fake.up();
          const { deps } = senderDeps(fake, served.outbox);
          await drainOutbox(deps, { minAgeSeconds: 0 });
          await drainOutbox(deps, { minAgeSeconds: 0 });
          const expected = emails.map((e) => ({
            to: e.to,
            orderNumber: e.payload.orderNumber,
            kind: e.kind,
          }));
          assert.deepEqual(deliveriesOf(fake, expected), [1, 1]);
          const rows = await outboxRows(db, orderIds);
          assert.deepEqual(rows.map((r) => [r.kind, r.status, r.attempts, r.last_error]), [
            ["buyer", "sent", 4, null],
            ["seller", "sent", 4, null],
          ]);
          const ids = new Set(fake.delivered.map((d) => d.id));
          assert.ok(rows.every((r) => r.provider_id && ids.has(r.provider_id)));
        });
      } finally {
        await served.close();
        await fake.close();
      }
    },
  });

  // pins a past bug: the drain re-sent failed rows through the batch endpoint under a key of its own, so a
  // provider that had accepted the request path's slow tries delivered each e-mail a second time
  Deno.test({
    name: `[${
      dbName === "PGlite" ? "pglite" : "postgres"
    }] drainOutbox() on ${dbName} re-sends a row the provider accepted too slowly under the row's own key: delivered once`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const db = await open();
      if (!db) return void console.warn(`notice: ${dbName} unreachable, test skipped`);
      const fake = startFakeResend();
      const served = serveOutbox(db);
      try {
        const emails = await createOrderWithEmails(db);
        const orderIds = [emails[0].orderId];
        // every try of the request path reaches the provider, whose answer comes after the mailer gave up
        fake.script(...Array.from({ length: 6 }, () => ({ slowMs: 300 })));
        const slow = senderDeps(fake, served.outbox);
        const slowMailer = createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 50 });
        const summary = await sendOrderEmails(emails, { ...slow.deps, mailer: slowMailer });
        assert.deepEqual(summary, { claimed: 2, sent: 0, failed: 2, dead: 0, ignored: 0 });
        assert.equal(fake.delivered.length, 2);

        await drainOutbox(senderDeps(fake, served.outbox).deps, { minAgeSeconds: 0 });
        assert.equal(fake.delivered.length, 2, "the drain delivered an e-mail the provider already had");
        const rows = await outboxRows(db, orderIds);
        assert.deepEqual(rows.map((r) => [r.kind, r.status]), [["buyer", "sent"], ["seller", "sent"]]);
        assert.deepEqual(
          new Set(fake.requests.map((r) => r.idempotencyKey)),
          new Set(emails.map((e) => `order/${e.orderId}/${e.kind}`)),
        );
      } finally {
        await served.close();
        await fake.close();
      }
    },
  });

  Deno.test({
    name: `[${
      dbName === "PGlite" ? "pglite" : "postgres"
    }] drainOutbox() on ${dbName} run twice concurrently never sends a row twice`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const db = await open();
      if (!db) return void console.warn(`notice: ${dbName} unreachable, test skipped`);
      const fake = startFakeResend();
      const served = serveOutbox(db);
      try {
        const emails = [];
        for (let i = 0; i < 12; i++) emails.push(...await createOrderWithEmails(db));
        const orderIds = [...new Set(emails.map((e) => e.orderId))];
        // half failed before, half left 'sending' by a sender that died
        await db.query(
          `update public.email_outbox set status = 'failed', attempts = 1, last_error = 'resend 500',
             claimed_at = now() - interval '2 minutes', claim_token = null
           where order_id = any($1::uuid[]) and kind = 'buyer'`,
          [orderIds],
        );
        await db.query(
          `update public.email_outbox set claimed_at = now() - interval '1 hour'
           where order_id = any($1::uuid[]) and kind = 'seller'`,
          [orderIds],
        );

        const a = senderDeps(fake, served.outbox);
        const b = senderDeps(fake, served.outbox);
        await Promise.all([
          drainOutbox(a.deps, { batchSize: 5, minAgeSeconds: 0 }),
          drainOutbox(b.deps, { batchSize: 5, minAgeSeconds: 0 }),
        ]);

        const expected = emails.map((e) => ({ to: e.to, orderNumber: e.payload.orderNumber, kind: e.kind }));
        assert.deepEqual(deliveriesOf(fake, expected), expected.map(() => 1));
        const rows = await outboxRows(db, orderIds);
        assert.equal(rows.length, 24);
        assert.ok(rows.every((r) => r.status === "sent"));
        assert.equal(new Set(rows.map((r) => r.provider_id)).size, 24);
      } finally {
        await served.close();
        await fake.close();
      }
    },
  });
}
