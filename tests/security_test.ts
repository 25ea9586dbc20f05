/**
 * Security (issue 6, part 4): keys compared in constant time and only from headers, nothing internal or
 * personal in an error body or a log line, injection kept out of e-mails, http(s)-only proof links, the
 * catalogue deciding every price, and create_order closed to the public key.
 */
import assert from "node:assert/strict";
import { timingSafeEqual } from "../supabase/functions/_shared/http/auth.ts";
import { createTestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { capturingLogger, findLeaks } from "./support/log_capture.ts";
import { gatewayOrderBody, orderBody } from "./support/order_request.ts";
import { countStoreRows } from "./support/store_rows.ts";

const db = await sharedPglite();
const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

function _medianMs(run: () => void, times = 21): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)];
}

Deno.test("timingSafeEqual() takes as long for a key wrong in its first byte as for one wrong in its last", () => {
  const key = "k".repeat(200_000);
  const wrongFirst = `x${key.slice(1)}`;
  const wrongLast = `${key.slice(0, -1)}x`;
  assert.equal(timingSafeEqual(key, wrongFirst), false);
  assert.equal(timingSafeEqual(key, wrongLast), false);
  assert.equal(timingSafeEqual(key, key), true);
  _medianMs(() => timingSafeEqual(key, wrongLast), 5); // warm up
  const first = _medianMs(() => timingSafeEqual(key, wrongFirst));
  const last = _medianMs(() => timingSafeEqual(key, wrongLast));
  // An early-exit compare answers the first in nanoseconds and the last after 200,000 bytes (ratio about
  // 0.06). The bounds are wide so that a busy CI machine cannot fail a constant-time compare.
  assert.ok(first / last > 0.25 && first / last < 4, `first ${first} ms, last ${last} ms`);
});

Deno.test("[pglite] POST create-order answers 401 for a key in the query string or the body", async (t) => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  const url = `${stack.url}/functions/v1/create-order`;
  const cases: [string, string, Record<string, unknown>][] = [
    ["apikey in the query", `?apikey=${stack.anonKey}`, orderBody(store)],
    ["access_token in the query", `?access_token=${stack.anonKey}`, orderBody(store)],
    ["apikey in the body", "", { ...orderBody(store), apikey: stack.anonKey }],
    ["Authorization in the body", "", { ...orderBody(store), Authorization: `Bearer ${stack.anonKey}` }],
  ];
  try {
    for (const [name, query, body] of cases) {
      await t.step(name, async () => {
        const res = await fetch(`${url}${query}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 401);
        assert.equal((await res.json()).error.code, "UNAUTHORIZED");
      });
    }
    assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order accepts a signed-in buyer's headers: the legacy anon key in apikey, a user JWT in Authorization", async () => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  try {
    const res = await fetch(`${stack.url}/functions/v1/create-order`, {
      method: "POST",
      headers: {
        apikey: stack.anonKey,
        Authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.signature",
        "Content-Type": "application/json",
      },
      body: JSON.stringify(orderBody(store)),
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).success, true);
    assert.equal((await countStoreRows(db, store.storeId)).orders, 1);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order shows no stack, SQL, key or personal data in any error body or log line", async () => {
  const store = await createTestStore(db);
  const log = capturingLogger();
  const stack = await startTestStack({ db, env: NO_LIMITS, log });
  const body = orderBody(store, { buyerName: "Meera Iyer", buyerEmail: "meera.iyer@example.org" });
  const secrets = [stack.anonKey, stack.serviceKey, "Meera Iyer", "meera.iyer@example.org", "9876543210"];
  const url = `${stack.url}/functions/v1/create-order`;
  const requests: [string, () => Promise<Response>][] = [
    ["no key", () => fetch(url, { method: "POST", body: JSON.stringify(body) })],
    ["wrong key", () => stack.post(body, { Authorization: `Bearer ${stack.serviceKey}x` })],
    ["GET", () => fetch(url, { headers: { Authorization: `Bearer ${stack.anonKey}` } })],
    ["bad JSON", () => stack.post(`{"buyerEmail":"meera.iyer@example.org",`)],
    ["bad fields", () => stack.post({ ...body, buyerPhone: "+91 98765 43210 ext", quantity: 1 })],
    ["unknown store", () => stack.post({ ...body, storeId: crypto.randomUUID() })],
    [
      "other price",
      () => stack.post({ ...body, items: [{ productId: store.products[0].id, quantity: 1, price: 1 }] }),
    ],
    ["too large", () => stack.post({ ...body, buyerName: "x".repeat(70_000) })],
    ["bad key header", () => stack.post(body, { "Idempotency-Key": "\u00e9" })],
  ];
  try {
    for (const [name, send] of requests) {
      const res = await send();
      const text = await res.text();
      assert.ok(res.status >= 400, name);
      assert.deepEqual(
        findLeaks(text, secrets),
        [],
        `${name}: ${text}`,
      );
    }
    assert.ok(log.lines.length >= requests.length);
    for (const line of log.lines) assert.deepEqual(findLeaks(line, secrets), [], line);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order escapes HTML from every string field in both e-mails, and refuses header injection", async () => {
  const store = await createTestStore(db);
  const mailer = capturingMailer();
  const stack = await startTestStack({ db, env: NO_LIMITS, mailer: () => Promise.resolve(mailer) });
  const html = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>`;
  try {
    // CR and LF never get as far as an e-mail: the text rule refuses them
    const injected = await stack.post(
      orderBody(store, { buyerName: "Asha\r\nBcc: victim@example.com\r\n\r\n<b>" }),
    );
    assert.equal(injected.status, 400);
    assert.deepEqual((await injected.json()).error.details.map((d: { path: string }) => d.path), [
      "buyerName",
    ]);

    const res = await stack.post(orderBody(store, {
      buyerName: `Asha <b>${html}`,
      shippingAddress: {
        line1: `1 ${html}`,
        line2: `2 ${html}`,
        city: `3 ${html}`,
        state: `4 ${html}`,
        postalCode: "<i>560001</i>",
        country: "IN",
      },
      paymentProofUrl: `https://proofs.example.com/p.png?a="><script>alert(3)</script>`,
    }));
    assert.equal(res.status, 200);
    await stack.settled();
    assert.equal(mailer.messages.length, 2);
    for (const message of mailer.messages) {
      for (const raw of ["<script", "<img", "onerror=alert(2)>", "<i>560001", "<b>"] as const) {
        const at = message.html.indexOf(raw);
        assert.ok(
          at < 0,
          `${message.idempotencyKey} html holds ${raw}: ${message.html.slice(at - 80, at + 40)}`,
        );
      }
      assert.ok(message.html.includes("&lt;script&gt;"), "the escaped value is shown");
      assert.doesNotMatch(message.subject, /[\r\n]/);
      assert.doesNotMatch(`${message.to} ${message.replyTo ?? ""}`, /victim/);
    }
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order answers 400 VALIDATION_FAILED for a paymentProofUrl that is not http(s)", async (t) => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  const urls = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "ftp://example.com/proof.png",
    "//evil.example.com/proof.png",
    "/proofs/123.png",
    "https://",
    " javascript:alert(1)",
  ];
  try {
    for (const paymentProofUrl of urls) {
      await t.step(paymentProofUrl, async () => {
        const res = await stack.post(orderBody(store, { paymentProofUrl }));
        const body = await res.json();
        assert.equal(res.status, 400);
        assert.equal(body.error.code, "VALIDATION_FAILED");
        assert.deepEqual(body.error.details.map((d: { path: string }) => d.path), ["paymentProofUrl"]);
      });
    }
    assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] create_order refuses prices and sums that are not the catalogue's, however it is called", async (t) => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  try {
    await t.step("through the function: 400 PRICE_MISMATCH with the current price", async () => {
      const res = await stack.post(gatewayOrderBody(store, "card", {
        items: [{ productId: store.products[0].id, quantity: 2, price: 0.01 }],
      }));
      const body = await res.json();
      assert.equal(res.status, 400);
      assert.equal(body.error.code, "PRICE_MISMATCH");
      assert.equal(body.error.details[0].price, 349);
    });
    const payload = (unitPriceMinor: number, totalMinor: number) => ({
      storeId: store.storeId,
      buyer: { email: "asha@example.com", name: "Asha Rao", phone: "+919876543210" },
      shippingAddress: { line1: "1", city: "Pune", state: "MH", postalCode: "411001", country: "IN" },
      paymentMethod: "gateway",
      gatewayMethod: "card",
      paymentProofUrl: null,
      items: [{ productId: store.products[0].id, variantId: null, quantity: 2, unitPriceMinor }],
      totalMinor,
      feeMinor: 0,
      finalMinor: totalMinor,
    });
    for (
      const [name, sent, code] of [
        ["a lower unit price", payload(1, 2), "OC400"],
        ["the right unit price, a lower total", payload(34_900, 100), "OCA00"],
      ] as const
    ) {
      await t.step(`called directly as service_role with ${name}: ${code}`, async () => {
        const error = await db.asRole(
          "service_role",
          (s) => s.query("select public.create_order($1::jsonb)", [JSON.stringify(sent)]),
        ).catch((e) => e);
        assert.equal((error as { code?: string }).code, code);
      });
    }
    assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order answers 404 for a product of another store and a variant of another product", async (t) => {
  const store = await createTestStore(db);
  const other = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  try {
    await t.step("PRODUCT_NOT_FOUND", async () => {
      const res = await stack.post(orderBody(store, {
        items: [{ productId: other.products[0].id, quantity: 1, price: 349 }],
      }));
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, "PRODUCT_NOT_FOUND");
    });
    await t.step("VARIANT_NOT_FOUND", async () => {
      const res = await stack.post(orderBody(store, {
        items: [{
          productId: store.products[2].id,
          variantId: other.variants[1].id,
          quantity: 1,
          price: 299,
        }],
      }));
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, "VARIANT_NOT_FOUND");
    });
    assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST /rest/v1/rpc/create_order answers 401 to the anon key and to no key", async (t) => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  const payload = { storeId: store.storeId, items: [], totalMinor: 0, feeMinor: 0, finalMinor: 0 };
  try {
    for (const [name, headers] of [["anon", { apikey: stack.anonKey }], ["no key", {}]] as const) {
      await t.step(name, async () => {
        const res = await fetch(`${stack.url}/rest/v1/rpc/create_order`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: JSON.stringify({ payload }),
        });
        assert.equal(res.status, 401);
        await res.body?.cancel();
      });
    }
    assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
  } finally {
    await stack.close();
  }
});
