/**
 * The outbox-drain function over HTTP on the local stack, called with the service key as pg_cron calls it:
 * who may call it, a failed row sent once, a row dead after its tenth failure, a stale claimer's late
 * result ignored, and nothing claimed while no mailer is configured. The tests of one database share it
 * and run in order; each leaves no row due but the last, so a drain's counts are exactly its test's rows.
 */
import assert from "node:assert/strict";
import type { LocalStack } from "../local/stack.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startFakeResend } from "../local/fake_resend.ts";
import { gatedMailer } from "./support/gated_mailer.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { outboxRows } from "./support/outbox_orders.ts";
import { fakeSleep } from "./support/recording_outbox.ts";

const PUBLISHABLE = "sb_publishable_drain_test";
const SECRET = "sb_secret_drain_test";
const ENV = {
  SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
  SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET }),
  RATE_LIMIT_PER_IP: "0",
  RATE_LIMIT_PER_EMAIL: "0",
};
/** Everything due now: failed rows at once, and claims of any age. */
const DUE_NOW = { minAgeSeconds: 0, staleAfterSeconds: 0 };
/** A drain's counts of e-mails, all 0 but those given. */
const counts = (some: Record<string, number> = {}) => ({
  claimed: 0,
  sent: 0,
  failed: 0,
  dead: 0,
  ignored: 0,
  superseded: 0,
  released: 0,
  ...some,
});

/** POST /functions/v1/outbox-drain with the service key (or `headers`), as the cron job sends it. */
function drain(stack: LocalStack, body: unknown = {}, headers?: HeadersInit): Promise<Response> {
  return fetch(`${stack.url}/functions/v1/outbox-drain`, {
    method: "POST",
    headers: headers ?? { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST outbox-drain answers 401 to no key and to public keys, 200 to the service and secret keys", async () => {
    const stack = await startTestStack({ db, env: ENV });
    try {
      const cases: [string, HeadersInit, number][] = [
        ["no key", {}, 401],
        ["anon key", { Authorization: `Bearer ${stack.anonKey}` }, 401],
        ["publishable key in apikey", { apikey: PUBLISHABLE }, 401],
        [
          "a user JWT beside the anon key",
          { apikey: stack.anonKey, Authorization: "Bearer eyJ.user.jwt" },
          401,
        ],
        ["service-role key", { Authorization: `Bearer ${stack.serviceKey}` }, 200],
        ["secret key in apikey", { apikey: SECRET }, 200],
      ];
      for (const [label, headers, status] of cases) {
        const res = await drain(stack, {}, headers);
        assert.equal(res.status, status, label);
        const body = await res.json();
        if (status === 401) {
          assert.equal(body.error.code, "UNAUTHORIZED", label);
          assert.equal(res.headers.get("www-authenticate"), "Bearer");
        } else {assert.deepEqual(Object.keys(body), [
            "unpaidOrders",
            "emails",
            "deadEmails",
            "refunds",
            "failedRefunds",
            "purged",
          ], label);}
      }
      const bad = await drain(stack, { minAgeSeconds: -1, limit: 5 });
      assert.equal(bad.status, 400);
      assert.deepEqual((await bad.json()).error.details.map((d: { path: string }) => d.path), [
        "minAgeSeconds",
        "limit",
      ]);
    } finally {
      await stack.close();
    }
  });

  test("POST outbox-drain sends a row the request path left failed exactly once", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    const stack = await startTestStack({
      db,
      mailer: undefined, // Resend through its SDK, against the fake
      sleep: fakeSleep().sleep,
      env: { ...ENV, RESEND_API_KEY: "re_test", RESEND_BASE_URL: fake.url },
    });
    try {
      fake.script({ status: 422 }, { status: 422 }); // the request path's two sends fail for good
      const order = await (await stack.post(orderBody(store))).json();
      await stack.settled();
      assert.deepEqual((await outboxRows(db, [order.orderId])).map((r) => [r.kind, r.status, r.attempts]), [
        ["buyer", "failed", 1],
        ["seller", "failed", 1],
      ]);

      const first = await drain(stack, DUE_NOW);
      assert.equal(first.status, 200);
      assert.deepEqual((await first.json()).emails, counts({ claimed: 2, sent: 2 }));
      const second = await (await drain(stack, DUE_NOW)).json();
      assert.deepEqual(second.emails, counts());

      const deliveries = (kind: string) =>
        fake.delivered.filter((d) =>
          d.subject.includes(order.orderNumber) &&
          d.to === (kind === "buyer" ? "asha@example.com" : store.ownerEmail)
        ).length;
      assert.deepEqual([deliveries("buyer"), deliveries("seller")], [1, 1]);
      const rows = await outboxRows(db, [order.orderId]);
      assert.deepEqual(rows.map((r) => [r.kind, r.status, r.attempts, r.last_error]), [
        ["buyer", "sent", 2, null],
        ["seller", "sent", 2, null],
      ]);
      assert.ok(rows.every((r) => fake.delivered.some((d) => d.id === r.provider_id)));
    } finally {
      await stack.close();
      await fake.close();
    }
  });

  test("POST outbox-drain marks a row dead at its tenth failed send, lists it in that run's answer, and never sends it again", async () => {
    const store = await createTestStore(db);
    const fake = startFakeResend();
    const stack = await startTestStack({
      db,
      mailer: undefined,
      sleep: fakeSleep().sleep,
      env: { ...ENV, RESEND_API_KEY: "re_test", RESEND_BASE_URL: fake.url },
    });
    try {
      fake.script({ status: 422 }, { status: 422 }); // failure 1 of each row, on the request path
      const order = await (await stack.post(orderBody(store))).json();
      await stack.settled();
      assert.equal((await outboxRows(db, [order.orderId])).length, 2);

      for (let failure = 2; failure <= 10; failure++) {
        // refused for sure, so no request delivered them: both rows in one batch request, refused
        fake.script({ status: 422 });
        const report = await (await drain(stack, DUE_NOW)).json();
        const dead = failure === 10 ? 2 : 0;
        assert.deepEqual(report.emails, counts({ claimed: 2, failed: 2, dead }), `failure ${failure}`);
        // the dead rows are listed after the run's sends: the run that made them dead lists them
        const listed = report.deadEmails.emails.filter((e: { orderId: string }) =>
          e.orderId === order.orderId
        );
        assert.deepEqual(
          listed.map((e: { kind: string }) => e.kind).sort(),
          failure === 10 ? ["buyer", "seller"] : [],
          `failure ${failure}`,
        );
      }
      const rows = await outboxRows(db, [order.orderId]);
      assert.deepEqual(rows.map((r) => [r.kind, r.status, r.attempts]), [["buyer", "dead", 10], [
        "seller",
        "dead",
        10,
      ]]);
      assert.ok(rows.every((r) => r.last_error?.startsWith("resend 422")));

      const requestsBefore = fake.requests.length;
      const after = await (await drain(stack, DUE_NOW)).json();
      assert.deepEqual(after.emails, counts());
      assert.equal(fake.requests.length, requestsBefore, "a dead row is not sent again");
      const listed = after.deadEmails.emails.filter((e: { orderId: string }) => e.orderId === order.orderId);
      assert.deepEqual(
        listed.map((
          e: { kind: string; failures: number; attempts: number },
        ) => [e.kind, e.failures, e.attempts])
          .sort(),
        [["buyer", 10, 10], ["seller", 10, 10]],
      );
      assert.ok(after.deadEmails.total >= 2);
      assert.ok(!JSON.stringify(after).includes("@"), "no address in the report");
    } finally {
      await stack.close();
      await fake.close();
    }
  });

  test("POST outbox-drain ignores a stale claimer's late result: the drain's claim and its result stand", async () => {
    const store = await createTestStore(db);
    const mail = gatedMailer();
    const stack = await startTestStack({ db, env: ENV, mailer: () => Promise.resolve(mail) });
    try {
      const order = await (await stack.post(orderBody(store))).json();
      await mail.arrived(2); // the request path's two sends stall

      // a drain told their claims are stale claims the rows anew and starts sending (one at a time)
      const draining = drain(stack, DUE_NOW);
      await mail.arrived(3);
      const claimed = await outboxRows(db, [order.orderId]);
      const tokens = await db.query<{ claim_token: string }>(
        "select claim_token::text from public.email_outbox where order_id = $1 order by kind",
        [order.orderId],
      );

      // the stalled sender wakes up with a failure and records it under its old claim: ignored
      mail.release(2, { ok: false, error: "resend network timeout", retryable: false });
      await stack.settled();
      assert.deepEqual(await outboxRows(db, [order.orderId]), claimed);
      assert.deepEqual(claimed.map((r) => [r.status, r.attempts]), [["sending", 0], ["sending", 0]]);
      assert.deepEqual(
        await db.query(
          "select claim_token::text from public.email_outbox where order_id = $1 order by kind",
          [
            order.orderId,
          ],
        ),
        tokens,
      );

      mail.openAll();
      const report = await (await draining).json();
      assert.deepEqual(report.emails, counts({ claimed: 2, sent: 2 }));
      assert.deepEqual((await outboxRows(db, [order.orderId])).map((r) => [r.status, r.attempts]), [
        ["sent", 1],
        ["sent", 1],
      ]);
      // each row sent by both claimers, under the one idempotency key that makes Resend drop the second
      const key = (kind: string) => `order/${order.orderId}/${kind}`;
      assert.deepEqual([...mail.keys].sort(), [key("buyer"), key("buyer"), key("seller"), key("seller")]);
    } finally {
      mail.openAll(); // a failed assertion must not leave a send, and so the stack, waiting
      await stack.close();
    }
  });

  test("POST outbox-drain answers 500 and claims nothing while no mailer is configured (no RESEND_API_KEY)", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: ENV, mailer: undefined });
    try {
      const order = await (await stack.post(orderBody(store))).json();
      await stack.settled();
      const claims = () =>
        db.query<{ status: string; claim_token: string }>(
          "select status, claim_token::text from public.email_outbox where order_id = $1 order by kind",
          [order.orderId],
        );
      const before = await claims();
      assert.deepEqual(before.map((r) => r.status), ["sending", "sending"]); // the request path could not send

      const res = await drain(stack, DUE_NOW);
      assert.equal(res.status, 500);
      assert.equal((await res.json()).error.code, "INTERNAL_ERROR");
      assert.deepEqual(await claims(), before);
    } finally {
      await stack.close();
    }
  });
}
