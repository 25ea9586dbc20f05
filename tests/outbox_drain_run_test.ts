/**
 * runOutboxDrain() with in-memory parts: the cancellation of unpaid orders is one step of the run, whose
 * failure stops nothing else, and whose claimed e-mails are sent by the same run.
 */
import assert from "node:assert/strict";
import { runOutboxDrain } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { internalError } from "../supabase/functions/_shared/errors.ts";
import { recordingMailer } from "./support/local_stack.ts";
import { fakeSleep, recordingOutbox } from "./support/recording_outbox.ts";
import { statusEmailData, statusOutboxEmail } from "./support/status_emails.ts";

const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
const purgeExpiredGuards = () => Promise.resolve({ idempotencyKeys: 0, rateLimitWindows: 0 });

Deno.test("runOutboxDrain() sends the cancelled e-mails of the unpaid orders it cancelled, counted with the run's", async () => {
  const cancelled = statusOutboxEmail(
    statusEmailData("cancelled", { previousStatus: "payment_pending", paidBy: null, movedBy: "system" }),
  );
  const outbox = recordingOutbox();
  const mailer = recordingMailer();
  const report = await runOutboxDrain({
    mailer,
    outbox,
    render,
    sleep: fakeSleep().sleep,
    log: () => {},
    purgeExpiredGuards,
    cancelUnpaidOrders: () =>
      Promise.resolve({
        cancelled: [{ orderId: cancelled.orderId, orderNumber: "ORD-2026-000042", paymentMethod: "gateway" }],
        emails: [cancelled],
        skipped: [{ orderId: crypto.randomUUID(), orderNumber: "ORD-2026-000043", paymentMethod: "gateway" }],
      }),
  });
  assert.deepEqual(report.unpaidOrders, { cancelled: 1, orderIds: [cancelled.orderId], skipped: 1 });
  assert.deepEqual(report.emails, {
    claimed: 1,
    sent: 1,
    failed: 0,
    dead: 0,
    ignored: 0,
    superseded: 0,
    released: 0,
  });
  assert.deepEqual(mailer.sent.map((m) => m.idempotencyKey), [`order/${cancelled.orderId}/status/cancelled`]);
});

Deno.test("runOutboxDrain() reports a failed cancellation of unpaid orders as null, logs it, and still drains and purges", async () => {
  const lines: Record<string, unknown>[] = [];
  const report = await runOutboxDrain({
    mailer: recordingMailer(),
    outbox: recordingOutbox(),
    render,
    sleep: fakeSleep().sleep,
    log: (event) => void lines.push(event),
    purgeExpiredGuards,
    cancelUnpaidOrders: () => Promise.reject(internalError(new Error("database down"))),
  });
  assert.equal(report.unpaidOrders, null);
  assert.deepEqual(report.purged, { idempotencyKeys: 0, rateLimitWindows: 0 });
  assert.deepEqual(lines.map((line) => line.event), ["orders.unpaid_cancel_failed", "email.drain_run"]);
});

Deno.test("runOutboxDrain() sends the cancelled orders' e-mails in batches under new keys, each written on its rows by their read before the request", async () => {
  const emails = [0, 1, 2].map(() =>
    statusOutboxEmail(
      statusEmailData("cancelled", { previousStatus: "payment_pending", paidBy: null, movedBy: "system" }),
    )
  );
  const outbox = recordingOutbox();
  const requests: { key: string; to: string[] }[] = [];
  const mailer = {
    send: () => Promise.reject(new Error("no e-mail goes alone here")),
    sendBatch(messages: { to: string }[], key: string) {
      requests.push({ key, to: messages.map((m) => m.to) });
      return Promise.resolve({ ok: true as const, providerIds: messages.map((_, i) => `batch-${i}`) });
    },
  };
  const report = await runOutboxDrain({
    mailer,
    outbox,
    render,
    sleep: fakeSleep().sleep,
    log: () => {},
    purgeExpiredGuards,
    cancelUnpaidOrders: () =>
      Promise.resolve({
        cancelled: emails.map((e, i) => ({
          orderId: e.orderId,
          orderNumber: `ORD-2026-00010${i}`,
          paymentMethod: "gateway" as const,
        })),
        emails,
        skipped: [],
      }),
  }, { batchSize: 2 });
  assert.deepEqual([report.emails.claimed, report.emails.sent], [3, 3]);
  assert.equal(requests.length, 2, "batches of at most batchSize");
  assert.deepEqual(requests.map((r) => r.to.length), [2, 1]);
  for (const request of requests) assert.match(request.key, /^outbox\/batch\/[0-9a-f-]{36}$/);
  // each batch's key reached the outbox with its rows before its request
  assert.deepEqual(
    outbox.reads.map((read) => [read.ids, read.batchKey]),
    [[emails.slice(0, 2).map((e) => e.id), requests[0].key], [[emails[2].id], requests[1].key]],
  );
});

Deno.test("runOutboxDrain() reads the dead rows after its sends, so the rows its sends made dead are in its answer", async () => {
  const calls: string[] = [];
  const outbox = recordingOutbox([statusOutboxEmail(statusEmailData("shipped"))]);
  const report = await runOutboxDrain({
    mailer: recordingMailer(),
    outbox: {
      ...outbox,
      claimDue: (options) => (calls.push("claim"), outbox.claimDue(options)),
      recordResults: (results) => (calls.push("record"), outbox.recordResults(results)),
      deadEmails: (limit) => (calls.push("dead"), outbox.deadEmails(limit)),
    },
    render,
    sleep: fakeSleep().sleep,
    log: () => {},
    purgeExpiredGuards,
    cancelUnpaidOrders: () => Promise.resolve({ cancelled: [], emails: [], skipped: [] }),
  }, { minAgeSeconds: 0 });
  assert.equal(report.emails.sent, 1);
  // the one report of dead rows comes last, after the result of the run's send was recorded
  assert.deepEqual([calls.filter((call) => call === "dead").length, calls.at(-1)], [1, "dead"]);
  assert.ok(calls.indexOf("record") < calls.indexOf("dead"), calls.join(", "));
});
