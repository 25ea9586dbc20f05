/**
 * The Resend adapter's batch request and its reading of Resend's answers: what was sent, what was refused
 * for sure, and what may have been delivered though the answer says otherwise. Against the fake Resend.
 */
import assert from "node:assert/strict";
import { startFakeResend } from "../local/fake_resend.ts";
import { renderOrderEmail } from "../supabase/functions/_shared/email/email_templates.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { orderEmailData, outboxEmail } from "./support/order_emails.ts";

const render = { from: "Chai & Co. <orders@example.com>", trackingUrlTemplate: "https://shop.example.com/t" };

async function withFake(work: (fake: ReturnType<typeof startFakeResend>) => Promise<void>) {
  const fake = startFakeResend();
  try {
    await work(fake);
  } finally {
    await fake.close();
  }
}

const messages = () => {
  const data = orderEmailData();
  return [
    renderOrderEmail(outboxEmail("buyer", data), render),
    renderOrderEmail(outboxEmail("seller", data), render),
  ];
};

Deno.test("createResendMailer() sendBatch() posts every message to /emails/batch under one key, strict, and answers their ids in order", async () => {
  await withFake(async (fake) => {
    const mailer = createResendMailer({ apiKey: "re_k", baseUrl: fake.url });
    const result = await mailer.sendBatch!(messages(), "outbox/batch/1");
    assert.ok(result.ok);
    assert.deepEqual(result.providerIds, fake.delivered.map((d) => d.id));
    assert.deepEqual(fake.requests.map((r) => [r.path, r.idempotencyKey, r.batchValidation]), [
      ["/emails/batch", "outbox/batch/1", "strict"],
    ]);
    assert.deepEqual((fake.requests[0].body as { to: string }[]).map((e) => e.to), [
      "asha@example.com",
      "owner@example.com",
    ]);
  });
});

Deno.test("createResendMailer() sendBatch() again under its key delivers nothing new and answers the same ids", async () => {
  await withFake(async (fake) => {
    const mailer = createResendMailer({ apiKey: "re_k", baseUrl: fake.url });
    const batch = messages();
    const first = await mailer.sendBatch!(batch, "outbox/batch/2");
    const again = await mailer.sendBatch!(batch, "outbox/batch/2");
    assert.deepEqual(again, first);
    assert.equal(fake.delivered.length, 2);
  });
});

Deno.test("createResendMailer() reads Resend's answers: 409 invalid_idempotent_request is sent already, a 429 refused, a 5xx and a time-out may have delivered", async (t) => {
  await withFake(async (fake) => {
    const mailer = createResendMailer({ apiKey: "re_k", baseUrl: fake.url, timeoutMs: 200 });
    const [message, other] = messages();
    await t.step("409 invalid_idempotent_request: the key's first request sent it", async () => {
      await mailer.send(message, "order/a/buyer");
      assert.deepEqual(await mailer.send(other, "order/a/buyer"), { ok: true, providerId: null });
    });
    await t.step("429: refused for sure, retry after its retry-after", async () => {
      fake.script({ status: 429, retryAfter: 3 });
      assert.deepEqual(await mailer.send(message, "order/b/buyer"), {
        ok: false,
        error: "resend 429 rate_limit_exceeded: Too many requests",
        retryable: true,
        maybeDelivered: false,
        retryAfterMs: 3_000,
      });
    });
    await t.step("422: refused for sure, not worth retrying", async () => {
      fake.script({ status: 422 });
      const result = await mailer.sendBatch!([message], "outbox/batch/3");
      assert.deepEqual(!result.ok && [result.retryable, result.maybeDelivered], [false, false]);
    });
    await t.step("500 and a request that hangs: may have been delivered", async () => {
      fake.script("act-then-fail", "hang");
      const failed = await mailer.sendBatch!([message], "outbox/batch/4");
      const hung = await mailer.send(message, "order/c/buyer");
      assert.deepEqual(
        [failed, hung].map((r) => !r.ok && [r.retryable, r.maybeDelivered]),
        [[true, true], [true, true]],
      );
    });
  });
});
