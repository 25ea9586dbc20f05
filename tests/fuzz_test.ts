/**
 * Property-based fuzzing of the request schema and the handler (issue 6, part 1). Valid orders must get
 * 200 with exactly the fee module's amounts; every mutation of one (wrong types, missing and extra fields,
 * huge and unicode strings, odd numbers, deep nesting, duplicate keys, `__proto__`) must get a 4xx with
 * the contract's error shape and write nothing. FUZZ_SEED and FUZZ_RUNS override; CI=true fixes the seed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createOrderHandler } from "../supabase/functions/create-order/handler.ts";
import { fromMinorUnits, priceOrder } from "../supabase/functions/_shared/orders/money.ts";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { memoryOrderStore } from "./support/memory_order_store.ts";
import { orderBody } from "./support/order_request.ts";
import { type FuzzCatalogue, fuzzOrderCase } from "./support/order_arbitraries.ts";

const SEED = Deno.env.get("FUZZ_SEED")
  ? Number(Deno.env.get("FUZZ_SEED"))
  : Deno.env.get("CI") === "true"
  ? 20261122
  : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 10_000);
const DATABASE_RUNS = Math.max(1, Math.round(RUNS / 25));
const KEY = "fuzz-anon-key";

/** The codes the contract allows a refused body to get, by status. */
const REFUSALS: Record<number, string[]> = {
  400: ["INVALID_JSON", "VALIDATION_FAILED", "PRICE_MISMATCH", "VARIANT_REQUIRED"],
  404: ["STORE_NOT_FOUND", "PRODUCT_NOT_FOUND", "VARIANT_NOT_FOUND"],
  413: ["PAYLOAD_TOO_LARGE"],
};

const CATALOGUE: FuzzCatalogue = {
  storeId: "5a1e0000-0000-4000-8000-000000000001",
  products: [
    { id: "5a1e0000-0000-4000-8000-0000000000a1", priceMinor: 34_900, variants: [] },
    { id: "5a1e0000-0000-4000-8000-0000000000a2", priceMinor: 19_950, variants: [] },
    {
      id: "5a1e0000-0000-4000-8000-0000000000a3",
      priceMinor: 25_000,
      variants: [
        { id: "5a1e0000-0000-4000-8000-0000000000b1", priceMinor: null },
        { id: "5a1e0000-0000-4000-8000-0000000000b2", priceMinor: 29_900 },
      ],
    },
    { id: "5a1e0000-0000-4000-8000-0000000000a4", priceMinor: 1, variants: [] },
  ],
};

function _request(text: string | Uint8Array<ArrayBuffer>): Request {
  return new Request("http://127.0.0.1/functions/v1/create-order", {
    method: "POST",
    headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
    body: text,
  });
}

/** Asserts a refusal: an allowed 4xx, exactly the contract's error body, and a request id. */
async function _assertRefusal(res: Response): Promise<string> {
  const body = await res.json();
  assert.ok(REFUSALS[res.status], `status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  assert.ok(res.headers.get("x-request-id"));
  assert.equal(body.success, false);
  assert.ok(REFUSALS[res.status].includes(body.error.code), `${res.status} ${body.error.code}`);
  assert.equal(typeof body.error.message, "string");
  assert.deepEqual(Object.keys(body).sort(), ["error", "success"]);
  for (const key of Object.keys(body.error)) assert.ok(["code", "message", "details"].includes(key), key);
  return body.error.code;
}

/** Asserts a 400 VALIDATION_FAILED for exactly the field at `path`. */
async function _assertRefusedAt(res: Response, path: string): Promise<void> {
  const body = await res.json();
  assert.equal(res.status, 400, JSON.stringify(body).slice(0, 300));
  assert.equal(body.error.code, "VALIDATION_FAILED");
  assert.deepEqual(body.error.details.map((d: { path: string }) => d.path), [path]);
}

/** Asserts a success with the given amounts and the contract's exact fields. */
async function _assertCreated(
  res: Response,
  expected: { totalMinor: number; feeMinor: number; finalMinor: number },
) {
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body).slice(0, 300));
  assert.deepEqual(body, {
    success: true,
    orderId: body.orderId,
    orderNumber: body.orderNumber,
    totalAmount: fromMinorUnits(expected.totalMinor),
    checkoutFee: fromMinorUnits(expected.feeMinor),
    finalAmount: fromMinorUnits(expected.finalMinor),
    status: "payment_pending",
  });
}

Deno.test("POST create-order answers every fuzzed body 200 with the fee module's amounts or a 4xx, never 500", async () => {
  console.log(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} to replay)`);
  const store = memoryOrderStore(CATALOGUE.storeId, CATALOGUE.products);
  const handle = createOrderHandler({
    config: {
      apiKeys: { public: [KEY], service: [] },
      allowedOrigins: ["*"],
      rateLimits: { perIp: { limit: 0, windowSeconds: 3600 }, perEmail: { limit: 0, windowSeconds: 3600 } },
      databaseTimeoutMs: 6_000,
    },
    clock: () => new Date("2026-11-22T09:30:00Z"),
    orders: store,
    verifyUserToken: () => Promise.resolve(null),
    sendOrderEmails: () => Promise.resolve(),
    waitUntil: () => {},
    log: () => {},
  });
  let cases = 0;
  let serverErrors = 0;
  const statuses = new Map<number, number>();
  try {
    await fc.assert(
      fc.asyncProperty(
        fuzzOrderCase(CATALOGUE),
        async (c) => {
          cases++;
          const written = store.written.length;
          const calls = store.calls;
          const res = await handle(_request(c.text));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) serverErrors++;
          if (c.kind === "valid") {
            await _assertCreated(res, c.expected);
            assert.equal(store.written.length, written + 1);
            const stored = store.written.at(-1)!;
            assert.deepEqual({ buyerName: stored.buyer.name, city: stored.shippingAddress.city }, c.stored);
          } else if (c.kind === "hostile") {
            await _assertRefusedAt(res, c.path);
            assert.equal(store.calls, calls, `${c.textClass} text reached the store`);
          } else if (res.status === 200) {
            // the mutation left a valid order (say, an optional field deleted): it is priced as any other
            assert.equal(store.written.length, written + 1);
            const payload = store.written.at(-1)!;
            await _assertCreated(
              res,
              priceOrder(payload.items, payload.paymentMethod, payload.gatewayMethod),
            );
          } else {
            const code = await _assertRefusal(res);
            assert.equal(store.written.length, written, "a refused body wrote an order");
            // a body the schema refuses never reaches the database at all
            if (!code.endsWith("NOT_FOUND") && !["PRICE_MISMATCH", "VARIANT_REQUIRED"].includes(code)) {
              assert.equal(store.calls, calls);
            }
          }
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  } finally {
    console.log(`fuzz: ${cases} cases, ${serverErrors} server errors`);
    console.log(`fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  }
  assert.equal(serverErrors, 0);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
  assert.deepEqual(Object.keys(Object.prototype), []);
});

Deno.test("[pglite] POST create-order refuses fuzzed bodies on a real database without a 500 or a row written", async () => {
  const db = await sharedPglite();
  const testStore = await createTestStore(db);
  const catalogue: FuzzCatalogue = {
    storeId: testStore.storeId,
    products: testStore.products.map((product, i) => ({
      id: product.id,
      priceMinor: Math.round(product.price * 100),
      variants: i === 2
        ? [
          { id: testStore.variants[0].id, priceMinor: null },
          { id: testStore.variants[1].id, priceMinor: Math.round(testStore.variants[1].price * 100) },
        ]
        : [],
    })),
  };
  const stack = await startTestStack({
    db,
    env: { SUPABASE_ANON_KEY: KEY, RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" },
  });
  let created = 0;
  let serverErrors = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fuzzOrderCase(catalogue),
        async (c) => {
          const res = await fetch(`${stack.url}/functions/v1/create-order`, {
            method: "POST",
            headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
            body: c.text,
          });
          if (res.status >= 500) serverErrors++;
          if (c.kind === "valid") await _assertCreated(res, c.expected);
          else if (c.kind === "hostile") await _assertRefusedAt(res, c.path);
          else if (res.status !== 200) await _assertRefusal(res);
          else await res.body?.cancel();
          if (res.status === 200) created++;
        },
      ),
      { seed: SEED + 1, numRuns: DATABASE_RUNS, endOnFailure: true },
    );
  } finally {
    await stack.close();
    console.log(`fuzz: ${DATABASE_RUNS} database cases, ${serverErrors} server errors`);
  }
  const [{ orders, emails }] = await db.query<{ orders: number; emails: number }>(
    `select (select count(*)::int from public.orders where store_id = $1) as orders,
       (select count(*)::int from public.email_outbox e join public.orders o on o.id = e.order_id
        where o.store_id = $1) as emails`,
    [testStore.storeId],
  );
  assert.equal(orders, created);
  assert.equal(emails, 2 * created);
});

// pins a bug the fuzzer found: U+0000 or an unpaired surrogate passed the schema, and PostgreSQL's
// jsonb refused it, so the buyer got a 500 for a typing accident (a proof URL holds neither now: it is
// stored as its serialisation, which percent-encodes them)
Deno.test("[pglite] POST create-order answers 400 VALIDATION_FAILED for text PostgreSQL cannot store", async (t) => {
  const db = await sharedPglite();
  const testStore = await createTestStore(db);
  const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" } });
  const address = orderBody(testStore).shippingAddress as Record<string, string>;
  const cases: [string, Record<string, unknown>][] = [
    ["buyerName", { buyerName: "Asha\u0000Rao" }],
    ["shippingAddress.line1", { shippingAddress: { ...address, line1: "12 MG\u0000 Road" } }],
    ["shippingAddress.line2", { shippingAddress: { ...address, line2: "Flat \ud800" } }],
    ["shippingAddress.city", { shippingAddress: { ...address, city: "Pune\udfff" } }],
    ["shippingAddress.postalCode", { shippingAddress: { ...address, postalCode: "411\u0000001" } }],
  ];
  try {
    for (const [path, overrides] of cases) {
      await t.step(path, async () => {
        const res = await stack.post(orderBody(testStore, overrides));
        const body = await res.json();
        assert.equal(res.status, 400);
        assert.equal(body.error.code, "VALIDATION_FAILED");
        assert.deepEqual(body.error.details.map((d: { path: string }) => d.path), [path]);
      });
    }
  } finally {
    await stack.close();
  }
});
