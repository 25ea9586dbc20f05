/**
 * Abuse limits (issue 6, part 5): orders per client IP and per buyer e-mail per fixed window, counted in
 * create_order; 429 RATE_LIMITED with Retry-After; replays and failed orders do not count; 0 turns off.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { countStoreRows } from "./support/store_rows.ts";

const db = await sharedPglite();

function _ip(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

function _email(): string {
  return `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

async function _stack(env: Record<string, string>) {
  return await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0", ...env } });
}

async function _assertRateLimited(res: Response, windowSeconds: number): Promise<void> {
  assert.equal(res.status, 429);
  assert.equal((await res.json()).error.code, "RATE_LIMITED");
  const retryAfter = Number(res.headers.get("Retry-After"));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `${retryAfter}`);
  assert.equal(res.headers.get("Access-Control-Allow-Origin"), "*");
}

Deno.test("[pglite] POST create-order answers 429 RATE_LIMITED with Retry-After past RATE_LIMIT_PER_EMAIL", async () => {
  const store = await createTestStore(db);
  const stack = await _stack({ RATE_LIMIT_PER_EMAIL: "2", RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "600" });
  try {
    const buyerEmail = _email();
    for (let i = 0; i < 2; i++) {
      assert.equal(
        (await stack.post(orderBody(store, { buyerEmail }), { "X-Forwarded-For": _ip() })).status,
        200,
      );
    }
    // the same address in other letter case is the same buyer
    const upper = buyerEmail.toUpperCase().replace("@EXAMPLE.COM", "@example.com");
    await _assertRateLimited(await stack.post(orderBody(store, { buyerEmail: upper })), 600);
    assert.equal((await stack.post(orderBody(store, { buyerEmail: _email() }))).status, 200);
    await stack.settled();
    assert.equal(stack.mail.sent.length, 6); // three orders: the refused one e-mailed no one
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order answers 429 RATE_LIMITED past RATE_LIMIT_PER_IP, per client address", async () => {
  const store = await createTestStore(db);
  const stack = await _stack({ RATE_LIMIT_PER_IP: "3", RATE_LIMIT_PER_IP_WINDOW_SECONDS: "3600" });
  try {
    const ip = _ip();
    for (let i = 0; i < 3; i++) {
      const res = await stack.post(orderBody(store, { buyerEmail: _email() }), { "X-Forwarded-For": ip });
      assert.equal(res.status, 200);
    }
    await _assertRateLimited(
      await stack.post(orderBody(store, { buyerEmail: _email() }), { "X-Forwarded-For": ip }),
      3600,
    );
    const other = await stack.post(orderBody(store, { buyerEmail: _email() }), { "X-Forwarded-For": _ip() });
    assert.equal(other.status, 200);
    assert.equal((await countStoreRows(db, store.storeId)).orders, 4);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order does not count idempotent replays against the limit", async () => {
  const store = await createTestStore(db);
  const stack = await _stack({ RATE_LIMIT_PER_EMAIL: "2" });
  try {
    const buyerEmail = _email();
    const headers = { "Idempotency-Key": `replay-${crypto.randomUUID()}` };
    const first = await (await stack.post(orderBody(store, { buyerEmail }), headers)).json();
    for (let i = 0; i < 3; i++) {
      const replay = await stack.post(orderBody(store, { buyerEmail }), headers);
      assert.equal(replay.status, 200);
      assert.equal((await replay.json()).orderId, first.orderId);
    }
    assert.equal((await stack.post(orderBody(store, { buyerEmail }))).status, 200);
    await _assertRateLimited(await stack.post(orderBody(store, { buyerEmail })), 3600);
    // a replay of a stored order is still answered once the window is full
    assert.equal((await stack.post(orderBody(store, { buyerEmail }), headers)).status, 200);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order does not count failed or refused orders against the limit", async () => {
  const store = await createTestStore(db);
  const stack = await _stack({ RATE_LIMIT_PER_EMAIL: "2" });
  try {
    const buyerEmail = _email();
    const failing = [
      orderBody(store, { buyerEmail, items: [{ productId: store.products[0].id, quantity: 1, price: 1 }] }),
      orderBody(store, { buyerEmail, storeId: crypto.randomUUID() }),
      orderBody(store, {
        buyerEmail,
        items: [{ productId: store.inactiveProductId, quantity: 1, price: 10 }],
      }),
      orderBody(store, { buyerEmail, buyerPhone: "12345" }),
    ];
    for (const body of failing) assert.notEqual((await stack.post(body)).status, 200);
    assert.equal((await stack.post(orderBody(store, { buyerEmail }))).status, 200);
    assert.equal((await stack.post(orderBody(store, { buyerEmail }))).status, 200);
    for (let i = 0; i < 3; i++) {
      await _assertRateLimited(await stack.post(orderBody(store, { buyerEmail })), 3600);
    }
    // refused orders rolled their count back: the window holds exactly the two stored orders
    const [{ hits }] = await db.query<{ hits: number }>(
      "select sum(hits)::int as hits from public.order_rate_limits where bucket = $1",
      [`email:${buyerEmail}`],
    );
    assert.equal(hits, 2);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order applies no limit when RATE_LIMIT_PER_IP and RATE_LIMIT_PER_EMAIL are 0", async () => {
  const store = await createTestStore(db);
  const stack = await _stack({});
  try {
    const buyerEmail = _email();
    const ip = _ip();
    for (let i = 0; i < 12; i++) {
      assert.equal(
        (await stack.post(orderBody(store, { buyerEmail }), { "X-Forwarded-For": ip })).status,
        200,
      );
    }
    const rows = await db.query(
      "select 1 from public.order_rate_limits where bucket in ($1, $2)",
      [`email:${buyerEmail}`, `ip:${ip}`],
    );
    assert.equal(rows.length, 0);
  } finally {
    await stack.close();
  }
});

// pins a past bug: v+1@... to v+12@... were twelve buyers to the limit, twelve 200s
Deno.test("[pglite] POST create-order counts +tag aliases of one address, in any letter case, against one RATE_LIMIT_PER_EMAIL", async () => {
  const store = await createTestStore(db);
  const stack = await _stack({ RATE_LIMIT_PER_EMAIL: "10", RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "3600" });
  try {
    const local = `v${crypto.randomUUID().slice(0, 8)}`;
    const statuses = [];
    for (let i = 1; i <= 12; i++) {
      const buyerEmail = i % 2 ? `${local}+${i}@example.com` : `${local.toUpperCase()}+${i}@Example.com`;
      const res = await stack.post(orderBody(store, { buyerEmail }), { "X-Forwarded-For": _ip() });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429]);
    const buckets = await db.query<{ bucket: string }>(
      "select bucket from public.order_rate_limits where bucket like $1",
      [`email:%${local}%`],
    );
    assert.deepEqual(buckets.map((b) => b.bucket), [`email:${local}@example.com`]);
  } finally {
    await stack.close();
  }
});
