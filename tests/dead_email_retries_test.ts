/**
 * Dead e-mails can be sent again by an operator (`retry_dead_emails`, docs/operate.md "Dead e-mails"), each
 * e-mail still once: a row last tried less than 24 hours ago keeps its idempotency key (its batch's, whole, or
 * its own), so a send whose answer was lost is answered by Resend without a second e-mail; one last tried 24
 * hours ago or more goes under a key never used, so it is sent. The fake Resend keeps keys as Resend does
 * within its 24 hours (for ever). Through supabase-js and the PostgREST stand-in, the real Resend SDK against
 * the fake over loopback, on PGlite and PostgreSQL. The tests of one database share it and run in order; each
 * leaves no row due.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { startFakeResend } from "../local/fake_resend.ts";
import { drainOutbox } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { sendOrderEmails } from "../supabase/functions/_shared/email/outbox_sender.ts";
import type { Mailer } from "../supabase/functions/_shared/email/mailer.ts";
import type { OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { createOrderWithEmails, serveOutbox } from "./support/outbox_orders.ts";
import { fakeSleep } from "./support/recording_outbox.ts";

const render = {
  from: "Shop <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
/** Everything due now: failed rows at once, and the request path's claims. */
const DUE_NOW = { minAgeSeconds: 0, staleAfterSeconds: 0 };

/** One outbox row as the tests compare it. */
interface _Row {
  kind: string;
  status: string;
  failures: number;
  attempts: number;
  key_round: number;
  batch_key: string | null;
  delivery_unknown: boolean;
}

function rowsOf(db: SqlDatabase, orderId: string): Promise<_Row[]> {
  return db.query<_Row>(
    `select kind, status, failures, attempts, key_round, batch_key, delivery_unknown from public.email_outbox
     where order_id = $1 order by kind`,
    [orderId],
  );
}

/** `retry_dead_emails` as the service role calls it (an operator through the API, or the SQL editor). */
async function retryDead(db: SqlDatabase, ids: string[] | null) {
  const [row] = await db.asRole(
    "service_role",
    (s) => s.query<{ result: string }>("select public.retry_dead_emails($1::uuid[])::text as result", [ids]),
  );
  return (JSON.parse(row.result) as {
    retried: { id: string; orderId: string; kind: string; newKey: boolean }[];
  })
    .retried;
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** A drain of what is due now, through `mailer`. */
  const drain = (served: ReturnType<typeof serveOutbox>, mailer: Mailer) =>
    drainOutbox({
      mailer,
      outbox: served.outbox,
      render,
      log: () => {},
      limits: { budgetMs: 3_000, sendTimeoutMs: 2_000, requestsPerSecond: Infinity },
    }, DUE_NOW);

  /** Makes the failed rows of `orderId` dead: nine failed sends counted, the tenth refused by Resend now. */
  const killRows = async (
    served: ReturnType<typeof serveOutbox>,
    fake: ReturnType<typeof startFakeResend>,
    orderId: string,
  ) => {
    await db.query("update public.email_outbox set failures = 9 where order_id = $1 and status = 'failed'", [
      orderId,
    ]);
    fake.always({ status: 500 });
    await drain(served, createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 2_000 }));
    fake.always("ok");
  };

  /**
   * An upi_direct order whose seller alert went, and whose buyer confirmation Resend delivered while its
   * answer was lost (then 500s): a row alone under its own key, that may have been delivered. Then dead.
   */
  const deadAfterALostAnswer = async (fake: ReturnType<typeof startFakeResend>) => {
    const served = serveOutbox(db);
    const store = await createTestStore(db);
    const [buyer, seller] = (await createOrderWithEmails(db, store)).sort((a, b) =>
      a.kind.localeCompare(b.kind)
    );
    const mailer = createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 2_000 });
    const deps = { mailer, outbox: served.outbox, render, sleep: fakeSleep().sleep, log: () => {} };
    await sendOrderEmails([seller], deps);
    fake.script("act-then-fail", { status: 500 }, { status: 500 });
    await sendOrderEmails([buyer], deps);
    await killRows(served, fake, buyer.orderId);
    assert.deepEqual((await rowsOf(db, buyer.orderId)).map((r) => [r.kind, r.status, r.delivery_unknown]), [
      ["buyer", "dead", true],
      ["seller", "sent", false],
    ]);
    return { served, buyer };
  };

  test("retry_dead_emails() gives a dead row last tried less than 24 hours ago 10 more sends under its own key, and the drain sends it once", async () => {
    const fake = startFakeResend();
    const { served, buyer } = await deadAfterALostAnswer(fake);
    try {
      assert.deepEqual(await retryDead(db, [buyer.id]), [
        { id: buyer.id, orderId: buyer.orderId, kind: "buyer", newKey: false },
      ]);
      const [row] = await rowsOf(db, buyer.orderId);
      assert.deepEqual(
        [row.status, row.failures, row.key_round, row.delivery_unknown],
        ["pending", 0, 0, true],
      );

      const summary = await drain(served, createResendMailer({ apiKey: "re_test", baseUrl: fake.url }));
      assert.deepEqual([summary.claimed, summary.sent], [1, 1]);
      assert.equal((await rowsOf(db, buyer.orderId))[0].status, "sent");
      const key = `order/${buyer.orderId}/buyer`;
      assert.equal(fake.requests.at(-1)?.idempotencyKey, key);
      // the e-mail Resend delivered before its answer was lost is the only one
      assert.equal(fake.delivered.filter((d) => d.idempotencyKey === key).length, 1);
    } finally {
      await served.close();
      await fake.close();
    }
  });

  test("retry_dead_emails() gives a dead row last tried 24 hours ago or more a key never used, so the e-mail is sent", async () => {
    const fake = startFakeResend();
    const { served, buyer } = await deadAfterALostAnswer(fake);
    try {
      // last tried 25 hours ago: Resend holds its key no more
      await db.asRole("postgres", async (s) => {
        await s.query("set local session_replication_role = replica");
        await s.query(
          "update public.email_outbox set updated_at = now() - interval '25 hours' where id = $1",
          [
            buyer.id,
          ],
        );
      });
      assert.deepEqual(await retryDead(db, [buyer.id]), [
        { id: buyer.id, orderId: buyer.orderId, kind: "buyer", newKey: true },
      ]);
      const [row] = await rowsOf(db, buyer.orderId);
      assert.deepEqual(
        [row.status, row.failures, row.key_round, row.batch_key, row.delivery_unknown],
        ["pending", 0, 1, null, false],
      );

      // a mailer without the batch endpoint sends it alone, under its own key's round 1
      const resend = createResendMailer({ apiKey: "re_test", baseUrl: fake.url });
      const summary = await drain(served, { send: resend.send.bind(resend) });
      assert.deepEqual([summary.claimed, summary.sent], [1, 1]);
      const keys = fake.delivered.filter((d) => d.idempotencyKey?.startsWith(`order/${buyer.orderId}/buyer`))
        .map((d) => d.idempotencyKey);
      assert.deepEqual(keys, [`order/${buyer.orderId}/buyer`, `order/${buyer.orderId}/buyer/retry/1`]);
      assert.equal((await rowsOf(db, buyer.orderId))[0].status, "sent");
    } finally {
      await served.close();
      await fake.close();
    }
  });

  test("retry_dead_emails() brings a dead batch back whole under its key: one row named, both rows sent, nothing delivered twice", async () => {
    const fake = startFakeResend();
    const served = serveOutbox(db);
    try {
      const store = await createTestStore(db);
      const emails: OutboxEmail[] = await createOrderWithEmails(db, store);
      const orderId = emails[0].orderId;
      const resend = createResendMailer({ apiKey: "re_test", baseUrl: fake.url, timeoutMs: 2_000 });
      // the request path's sends refused for sure: the rows may join a batch
      fake.script({ status: 422 }, { status: 422 });
      await sendOrderEmails(emails, { mailer: resend, outbox: served.outbox, render, log: () => {} });
      // the batch is delivered and its answer lost (a 500): its rows go only as that batch, under its key
      fake.script("act-then-fail");
      await drain(served, resend);
      const [{ batch_key: batchKey }] = await rowsOf(db, orderId);
      assert.match(batchKey ?? "", /^outbox\/batch\//);
      await killRows(served, fake, orderId);
      assert.deepEqual((await rowsOf(db, orderId)).map((r) => [r.kind, r.status, r.batch_key]), [
        ["buyer", "dead", batchKey],
        ["seller", "dead", batchKey],
      ]);

      const buyer = emails.find((e) => e.kind === "buyer")!;
      const retried = await retryDead(db, [buyer.id]);
      assert.deepEqual(retried.map((r) => [r.kind, r.newKey]).sort(), [["buyer", false], ["seller", false]]);
      const summary = await drain(served, resend);
      assert.deepEqual([summary.claimed, summary.sent], [2, 2]);
      assert.deepEqual((await rowsOf(db, orderId)).map((r) => r.status), ["sent", "sent"]);
      assert.equal(fake.requests.at(-1)?.idempotencyKey, batchKey);
      assert.equal(fake.delivered.filter((d) => d.idempotencyKey === batchKey).length, 2, "each e-mail once");
    } finally {
      await served.close();
      await fake.close();
    }
  });

  test("retry_dead_emails() moves only dead rows, once: a second call, or one naming rows not dead, retries nothing", async () => {
    const fake = startFakeResend();
    const { served, buyer } = await deadAfterALostAnswer(fake);
    try {
      const seller = await db.query<{ id: string }>(
        "select id::text from public.email_outbox where order_id = $1 and kind = 'seller'",
        [buyer.orderId],
      );
      const first = await retryDead(db, null);
      assert.ok(first.some((r) => r.id === buyer.id), "every dead row, this one among them");
      assert.ok(
        !first.some((r) => r.orderId === buyer.orderId && r.kind === "seller"),
        "a sent row stays sent",
      );
      assert.deepEqual(await retryDead(db, [buyer.id, seller[0].id]), []);
      assert.deepEqual((await rowsOf(db, buyer.orderId)).map((r) => [r.kind, r.status]), [
        ["buyer", "pending"],
        ["seller", "sent"],
      ]);
      await drain(served, createResendMailer({ apiKey: "re_test", baseUrl: fake.url }));
      assert.equal((await rowsOf(db, buyer.orderId))[0].status, "sent");
    } finally {
      await served.close();
      await fake.close();
    }
  });
}
