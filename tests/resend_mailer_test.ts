import assert from "node:assert/strict";
import { createResendMailer, parseRetryAfter } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { sendOrderEmails } from "../supabase/functions/_shared/email/outbox_sender.ts";
import { renderOrderEmail } from "../supabase/functions/_shared/email/email_templates.ts";
import { fakeSleep, recordingOutbox } from "./support/recording_outbox.ts";
import { orderEmailData, outboxEmail } from "./support/order_emails.ts";
import { startFakeResend } from "../local/fake_resend.ts";

const render = {
  from: "Chai & Co. <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/t/{orderId}",
  trackingSecret: "test-tracking-secret-of-32-characters",
};
const API_KEY = "re_test_key";

async function withFake(work: (fake: ReturnType<typeof startFakeResend>) => Promise<void>) {
  const fake = startFakeResend();
  try {
    await work(fake);
  } finally {
    await fake.close();
  }
}

function deps(fakeUrl: string, outbox = recordingOutbox()) {
  const { sleep, waits } = fakeSleep();
  const logs: Record<string, unknown>[] = [];
  return {
    outbox,
    waits,
    logs,
    deps: {
      mailer: createResendMailer({ apiKey: API_KEY, baseUrl: fakeUrl }),
      outbox,
      render,
      sleep,
      log: (event: Record<string, unknown>) => void logs.push(event),
    },
  };
}

Deno.test("sendOrderEmails() through Resend sends both mails with recipients, Reply-To, from and keys", async () => {
  await withFake(async (fake) => {
    const data = orderEmailData();
    const emails = [outboxEmail("buyer", data), outboxEmail("seller", data)];
    const t = deps(fake.url);
    const summary = await sendOrderEmails(emails, t.deps);

    assert.deepEqual(summary, { claimed: 2, sent: 2, failed: 0, dead: 0, ignored: 0 });
    assert.equal(fake.requests.length, 2);
    const byKey = new Map(fake.requests.map((r) => [r.idempotencyKey, r]));
    const buyer = byKey.get(`order/${data.orderId}/buyer`)!.body as Record<string, unknown>;
    const seller = byKey.get(`order/${data.orderId}/seller`)!.body as Record<string, unknown>;
    assert.deepEqual([buyer.to, buyer.reply_to, buyer.from], [
      "asha@example.com",
      "owner@example.com",
      render.from,
    ]);
    assert.deepEqual([seller.to, seller.reply_to, seller.from], [
      "owner@example.com",
      "asha@example.com",
      render.from,
    ]);
    assert.equal(buyer.subject, "Your order ORD-2026-000042 at Chai & Co.");
    assert.ok(fake.requests.every((r) => r.path === "/emails" && r.authorization === `Bearer ${API_KEY}`));
    // one recordResults call, each row with the id Resend gave it
    assert.equal(t.outbox.recorded.length, 1);
    const ids = new Map(fake.delivered.map((d) => [d.to, d.id]));
    assert.deepEqual(t.outbox.recorded[0], [
      {
        id: emails[0].id,
        claimToken: emails[0].claimToken,
        attempts: 1,
        providerId: ids.get("asha@example.com"),
      },
      {
        id: emails[1].id,
        claimToken: emails[1].claimToken,
        attempts: 1,
        providerId: ids.get("owner@example.com"),
      },
    ]);
    assert.ok(!JSON.stringify(t.logs).includes("@"), "no address in the logs");
  });
});

Deno.test("sendOrderEmails() through Resend sends once after a provider 500 then 200", async () => {
  await withFake(async (fake) => {
    fake.script({ status: 500 });
    const email = outboxEmail("buyer");
    const t = deps(fake.url);
    await sendOrderEmails([email], t.deps);

    assert.equal(fake.requests.length, 2);
    assert.equal(fake.delivered.length, 1);
    assert.deepEqual(t.waits, [500]);
    assert.deepEqual(t.outbox.recorded, [[{
      id: email.id,
      claimToken: email.claimToken,
      attempts: 2,
      providerId: fake.delivered[0].id,
    }]]);
  });
});

Deno.test("sendOrderEmails() through Resend waits a 429's retry-after, then sends", async () => {
  await withFake(async (fake) => {
    fake.script({ status: 429, retryAfter: 2 });
    const email = outboxEmail("seller");
    const t = deps(fake.url);
    await sendOrderEmails([email], t.deps);

    assert.deepEqual(t.waits, [2000]);
    assert.equal(fake.delivered.length, 1);
    assert.deepEqual(t.outbox.recorded, [[{
      id: email.id,
      claimToken: email.claimToken,
      attempts: 2,
      providerId: fake.delivered[0].id,
    }]]);
  });
});

Deno.test("sendOrderEmails() through Resend leaves a row failed with the error after 3 tries when down", async () => {
  await withFake(async (fake) => {
    await fake.down();
    const email = outboxEmail("buyer");
    const t = deps(fake.url);
    const summary = await sendOrderEmails([email], t.deps);

    assert.deepEqual(summary, { claimed: 1, sent: 0, failed: 1, dead: 0, ignored: 0 });
    assert.deepEqual(t.waits, [500, 1000]);
    const [[result]] = t.outbox.recorded;
    assert.ok("error" in result && result.error.startsWith("resend network application_error"));
    assert.equal(result.attempts, 3);
  });
});

Deno.test("sendOrderEmails() through Resend does not retry a 422 validation error", async () => {
  await withFake(async (fake) => {
    fake.script({ status: 422 });
    const email = outboxEmail("buyer");
    const t = deps(fake.url);
    await sendOrderEmails([email], t.deps);

    assert.equal(fake.requests.length, 1);
    assert.deepEqual(t.waits, []);
    const [[result]] = t.outbox.recorded;
    assert.ok("error" in result && result.error.startsWith("resend 422 validation_error"));
  });
});

Deno.test("createResendMailer() send() twice with one idempotency key delivers once", async () => {
  await withFake(async (fake) => {
    const mailer = createResendMailer({ apiKey: API_KEY, baseUrl: fake.url });
    const message = renderOrderEmail(outboxEmail("buyer"), render);
    const first = await mailer.send(message, "order/x/buyer");
    const second = await mailer.send(message, "order/x/buyer");

    assert.deepEqual(first, second);
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.delivered.length, 1);
  });
});

Deno.test("parseRetryAfter() reads seconds and HTTP dates", () => {
  assert.equal(parseRetryAfter("2"), 2000);
  assert.equal(parseRetryAfter("0.5"), 500);
  assert.equal(parseRetryAfter("Sun, 22 Nov 2026 10:00:05 GMT", Date.parse("2026-11-22T10:00:00Z")), 5000);
  assert.equal(parseRetryAfter("soon"), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});

Deno.test("sendOrderEmails() through Resend slower than the time-out leaves the row failed, and a retry delivers nothing twice", async () => {
  await withFake(async (fake) => {
    // the provider accepts each try at once but answers after the mailer has given up
    fake.script({ slowMs: 300 }, { slowMs: 300 }, { slowMs: 300 });
    const email = outboxEmail("buyer");
    const t = deps(fake.url);
    const slowDeps = {
      ...t.deps,
      mailer: createResendMailer({ apiKey: API_KEY, baseUrl: fake.url, timeoutMs: 50 }),
    };
    assert.deepEqual(await sendOrderEmails([email], slowDeps), {
      claimed: 1,
      sent: 0,
      failed: 1,
      dead: 0,
      ignored: 0,
    });
    const [[failed]] = t.outbox.recorded;
    assert.ok("error" in failed);
    assert.equal(failed.attempts, 3);

    // the recovery send (the drain's, with the provider fast again) carries the same idempotency key
    assert.deepEqual(await sendOrderEmails([email], t.deps), {
      claimed: 1,
      sent: 1,
      failed: 0,
      dead: 0,
      ignored: 0,
    });
    assert.equal(fake.requests.length, 4);
    assert.deepEqual(
      new Set(fake.requests.map((r) => r.idempotencyKey)),
      new Set([`order/${email.orderId}/buyer`]),
    );
    assert.equal(fake.delivered.length, 1);
    assert.deepEqual(t.outbox.recorded[1], [{
      id: email.id,
      claimToken: email.claimToken,
      attempts: 1,
      providerId: fake.delivered[0].id,
    }]);
  });
});
