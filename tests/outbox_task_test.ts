import assert from "node:assert/strict";
import { createFileMailer, emlText } from "../local/file_mailer.ts";
import {
  describeDrainReport,
  describeNothingAnswers,
  outboxTaskEnv,
  parseOutboxFlags,
  runOutboxTask,
} from "../local/outbox_task.ts";
import { DEMO_KEYS } from "../local/stack.ts";
import { renderOrderEmail } from "../supabase/functions/_shared/email/email_templates.ts";
import { sharedPglite } from "./support/databases.ts";
import { startFakeResend } from "../local/fake_resend.ts";
import { orderEmailData, outboxEmail } from "./support/order_emails.ts";
import { createOrderWithEmails, outboxRows, serveOutbox } from "./support/outbox_orders.ts";
import { fakeSleep } from "./support/recording_outbox.ts";
import { recordingMailer, startTestStack } from "./support/local_stack.ts";
import { runTask } from "./support/task_process.ts";

function _closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close(); // nothing listens there now
  return port;
}

Deno.test({
  name: "[pglite] runOutboxTask() sends an order's e-mails exactly once after its sender died before sending",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = await sharedPglite();
    const fake = startFakeResend();
    const served = serveOutbox(db);
    try {
      // The request path claimed the rows (create_order) and died before sending: they stay 'sending'.
      const emails = await createOrderWithEmails(db);
      const env = {
        SUPABASE_URL: served.url,
        SUPABASE_SERVICE_ROLE_KEY: served.serviceKey,
        RESEND_API_KEY: "re_test",
        RESEND_BASE_URL: fake.url,
        ORDER_EMAIL_FROM: "Shop <orders@example.com>",
        ORDER_TRACKING_URL: "https://shop.example.com/t/{orderNumber}",
      };
      const printed: string[] = [];
      const io = {
        log: () => {},
        print: (line: string) => void printed.push(line),
        sleep: fakeSleep().sleep,
      };

      await runOutboxTask(["--min-age=0"], env, io); // claims not stale yet: nothing of ours is sent
      assert.equal(fake.delivered.filter((d) => emails.some((e) => e.to === d.to)).length, 0);
      await runOutboxTask(["--min-age=0", "--stale-after=0"], env, io);
      await runOutboxTask(["--min-age=0", "--stale-after=0"], env, io);

      const ours = (key: string) => fake.requests.filter((r) => r.idempotencyKey === key).length;
      assert.deepEqual(emails.map((e) => ours(`order/${e.orderId}/${e.kind}`)), [1, 1]);
      const rows = await outboxRows(db, [emails[0].orderId]);
      assert.deepEqual(rows.map((r) => [r.kind, r.status, r.attempts]), [["buyer", "sent", 1], [
        "seller",
        "sent",
        1,
      ]]);
      const outboxLines = printed.filter((line) => line.startsWith("outbox:"));
      assert.match(
        outboxLines[1],
        /^outbox: claimed \d+, sent \d+, failed 0, dead 0, ignored 0, superseded \d+, released 0$/,
      );
      assert.match(printed.at(-1)!, /^housekeeping: removed \d+ idempotency keys?, \d+ rate-limit windows?$/);
      assert.match(printed[0], /^unpaid orders: cancelled \d+, left for a later run \d+$/);
    } finally {
      await served.close();
      await fake.close();
    }
  },
});

Deno.test("parseOutboxFlags() reads --min-age and --stale-after and refuses anything else", () => {
  assert.deepEqual(parseOutboxFlags([]), { minAgeSeconds: 60, staleAfterSeconds: 300 });
  assert.deepEqual(parseOutboxFlags(["--min-age=0", "--stale-after=30"]), {
    minAgeSeconds: 0,
    staleAfterSeconds: 30,
  });
  assert.throws(() => parseOutboxFlags(["--min-age=-1"]), /--min-age must be a whole number/);
  assert.throws(() => parseOutboxFlags(["--min-age="]), /--min-age must be a whole number/);
  assert.throws(() => parseOutboxFlags(["--fast"]), /unknown argument --fast/);
});

Deno.test("createFileMailer() writes an .html and an .eml per message, once per idempotency key", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const lines: Record<string, unknown>[] = [];
    const mailer = createFileMailer({
      dir,
      log: (e) => void lines.push(e),
      clock: () => new Date("2026-11-22T09:30:00Z"),
    });
    const email = outboxEmail("buyer", orderEmailData());
    const message = renderOrderEmail(email, {
      from: "Shop <o@example.com>",
      trackingUrlTemplate: "https://x/{orderId}",
    });
    const first = await mailer.send(message, `order/${email.orderId}/buyer`);
    const again = await mailer.send(message, `order/${email.orderId}/buyer`);

    const name = `2026-11-22T09-30-00-000Z-${email.orderId}-buyer`;
    assert.deepEqual(first, { ok: true, providerId: name });
    assert.deepEqual(again, first);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [`${name}.eml`, `${name}.html`]);
    assert.equal(await Deno.readTextFile(`${dir}/${name}.html`), message.html);
    assert.equal(await Deno.readTextFile(`${dir}/${name}.eml`), emlText(message));
    assert.ok(
      emlText(message).startsWith(
        "From: Shop <o@example.com>\r\nTo: asha@example.com\r\nReply-To: owner@example.com\r\n" +
          "Subject: Your order ORD-2026-000042 at Chai & Co.\r\n",
      ),
    );
    assert.equal(lines.length, 1);
    assert.ok(!JSON.stringify(lines).includes("@"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("outboxTaskEnv() drains the local stack with its demo key when SUPABASE_URL is not set", () => {
  assert.deepEqual(outboxTaskEnv({}), {
    SUPABASE_URL: "http://127.0.0.1:54321",
    SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole,
  });
  assert.deepEqual(outboxTaskEnv({ PORT: "6000", SUPABASE_SECRET_KEYS: '{"default":"sb_secret_x"}' }), {
    PORT: "6000",
    SUPABASE_URL: "http://127.0.0.1:6000",
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_x"}',
  });
  const remote = { SUPABASE_URL: "https://abc.supabase.co", SUPABASE_SERVICE_ROLE_KEY: "k" };
  assert.deepEqual(outboxTaskEnv(remote), remote);
});

Deno.test({
  name:
    "[pglite] runOutboxTask() without SUPABASE_URL or a key drains the local stack on PORT with its demo service key",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      const emails = await createOrderWithEmails(db);
      const mailer = recordingMailer();
      const port = new URL(stack.url).port;
      const report = await runOutboxTask(["--min-age=0", "--stale-after=0"], { PORT: port }, {
        mailer,
        log: () => {},
        print: () => {},
        sleep: fakeSleep().sleep,
      });
      assert.equal(report.emails.failed, 0);
      const keys = mailer.sent.map((sent) => sent.idempotencyKey);
      assert.deepEqual(
        emails.map((e) => keys.filter((key) => key === `order/${e.orderId}/${e.kind}`).length),
        [1, 1],
      );
    } finally {
      await stack.close();
    }
  },
});

// pins a past bug: without RESEND_API_KEY the task wrote a remote project's e-mails to local files and
// recorded them sent, so its buyers never got them
Deno.test("runOutboxTask() refuses to drain a project elsewhere without RESEND_API_KEY, before claiming anything", async () => {
  await assert.rejects(
    runOutboxTask([], { SUPABASE_URL: "https://abc.supabase.co", SUPABASE_SERVICE_ROLE_KEY: "k" }, {
      log: () => {},
      print: () => {},
    }),
    /^Error: RESEND_API_KEY is not set: draining abc\.supabase\.co would mark its e-mails sent/,
  );
});

Deno.test("deno task outbox with no stack running on PORT names the URL it tried and how to start the stack there, exit 2", async () => {
  const port = _closedPort();
  const run = await runTask("outbox", {
    cwd: Deno.cwd(),
    env: { PORT: String(port), SUPABASE_URL: "", SUPABASE_SERVICE_ROLE_KEY: "", SUPABASE_SECRET_KEYS: "" },
  });
  assert.deepEqual([run.code, run.stderr.trim(), run.stdout], [
    2,
    `outbox: nothing answers at http://127.0.0.1:${port}, the local stack's address on PORT ${port}: start ` +
    `the stack there in another terminal (PORT=${port} npx -y deno@2.9.6 task dev), or set PORT to the port ` +
    "it serves on",
    "",
  ]);
});

Deno.test("describeNothingAnswers() without PORT tells the reader to set PORT, not SUPABASE_URL", () => {
  const sentence = describeNothingAnswers("http://127.0.0.1:54321", { PORT: "", SUPABASE_URL: "" });
  assert.equal(
    sentence,
    "nothing answers at http://127.0.0.1:54321, the local stack's address (PORT is not set, so 54321): start " +
      "the stack in another terminal (npx -y deno@2.9.6 task dev), or set PORT to the port it serves on " +
      "(PORT=<port> npx -y deno@2.9.6 task outbox)",
  );
  assert.doesNotMatch(sentence, /SUPABASE_URL/);
});

Deno.test("runOutboxTask() with a SUPABASE_URL where nothing answers names it", async () => {
  const url = `http://127.0.0.1:${_closedPort()}`;
  await assert.rejects(
    runOutboxTask([], { SUPABASE_URL: url, SUPABASE_SERVICE_ROLE_KEY: "k" }, {
      mailer: recordingMailer(),
      log: () => {},
      print: () => {},
    }),
    new Error(`nothing answers at ${url} (SUPABASE_URL): correct SUPABASE_URL, or start the stack it names`),
  );
});

Deno.test("describeDrainReport() counts one dead e-mail, failed refund, key and window in the singular, more in the plural", () => {
  const report = (n: number) => ({
    unpaidOrders: { cancelled: n, orderIds: [], skipped: 0 },
    emails: { claimed: n, sent: n, failed: 0, dead: 0, ignored: 0, superseded: 0, released: 0 },
    deadEmails: { total: n, emails: [] },
    refunds: { issued: n, adopted: 0, failed: 0, released: 0 },
    failedRefunds: Array.from({ length: n }, (_, i) => ({ refundId: `r${i}`, orderId: `o${i}` })),
    purged: { idempotencyKeys: n, rateLimitWindows: n },
  });
  assert.deepEqual(describeDrainReport(report(1)).slice(2), [
    "outbox: 1 dead e-mail, never retried automatically: npx -y deno@2.9.6 task orders lists them",
    "refunds: issued 1 (adopted 0), failed 0, released 0",
    'refunds: 1 failed refund waits for a person (docs/operate.md, "Refunds"): r0',
    "housekeeping: removed 1 idempotency key, 1 rate-limit window",
  ]);
  assert.deepEqual(describeDrainReport(report(2)).slice(2), [
    "outbox: 2 dead e-mails, never retried automatically: npx -y deno@2.9.6 task orders lists them",
    "refunds: issued 2 (adopted 0), failed 0, released 0",
    'refunds: 2 failed refunds wait for a person (docs/operate.md, "Refunds"): r0, r1',
    "housekeeping: removed 2 idempotency keys, 2 rate-limit windows",
  ]);
});
