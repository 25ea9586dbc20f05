import assert from "node:assert/strict";
import {
  type CreateOrderDependencies,
  createOrderHandler,
} from "../supabase/functions/create-order/handler.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import type { OrderOutboxEmail, OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import type { CreateOrderResult, OrderStore } from "../supabase/functions/_shared/orders/order_store.ts";
import { capturingLogger } from "./support/log_capture.ts";
import { memoryOrderStore } from "./support/memory_order_store.ts";

const STORE_ID = "11111111-1111-4111-8111-111111111111";
const PRODUCT_ID = "aaaaaaaa-0001-4000-8000-000000000001";
const KEY = "anon-key";
const URL_ = "http://localhost/functions/v1/create-order";

function body(overrides: Record<string, unknown> = {}) {
  return {
    storeId: STORE_ID,
    buyerEmail: "asha@example.com",
    buyerName: "Asha Rao",
    buyerPhone: "+919876543210",
    shippingAddress: { line1: "12 MG Road", city: "Pune", state: "MH", postalCode: "411001", country: "IN" },
    items: [{ productId: PRODUCT_ID, quantity: 3, price: 0.1 }],
    paymentMethod: "gateway",
    gatewayMethod: "card",
    ...overrides,
  };
}

/** What create_order returns for order o1: a new order with its claimed e-mails, or a replay. */
function storedOrder(replayed: boolean, emails: OrderOutboxEmail[] = []): CreateOrderResult {
  return {
    replayed,
    emails,
    response: {
      success: true,
      orderId: "o1",
      orderNumber: "ORD-2026-000001",
      totalAmount: 1,
      checkoutFee: 0,
      finalAmount: 1,
      status: "payment_pending",
    },
  };
}

const EMAIL = {
  id: "e1",
  orderId: "o1",
  kind: "buyer",
  to: "a@b.co",
  replyTo: null,
  attempts: 0,
} as unknown as OrderOutboxEmail;

function setup(
  options: {
    orders?: OrderStore;
    allowedOrigins?: string[];
    sendOrderEmails?: CreateOrderDependencies["sendOrderEmails"];
    verifyUserToken?: CreateOrderDependencies["verifyUserToken"];
  } = {},
) {
  const store = memoryOrderStore(STORE_ID, [{ id: PRODUCT_ID, priceMinor: 10, variants: [] }]);
  const log = capturingLogger();
  const background: Promise<unknown>[] = [];
  const emailed: OutboxEmail[][] = [];
  const deps: CreateOrderDependencies = {
    config: {
      apiKeys: { public: [KEY], service: [] },
      allowedOrigins: options.allowedOrigins ?? ["*"],
      rateLimits: { perIp: { limit: 5, windowSeconds: 60 }, perEmail: { limit: 2, windowSeconds: 60 } },
      databaseTimeoutMs: 6_000,
    },
    clock: () => new Date("2026-05-04T03:02:01.000Z"),
    orders: options.orders ?? store,
    verifyUserToken: options.verifyUserToken ?? (() => Promise.resolve(null)),
    sendOrderEmails: options.sendOrderEmails ?? ((emails) => Promise.resolve(void emailed.push(emails))),
    waitUntil: (work) => void background.push(work),
    log,
    newRequestId: () => "req-1",
  };
  const handle = createOrderHandler(deps);
  const call = (init: RequestInit & { headers?: Record<string, string> } = {}) =>
    handle(
      new Request(URL_, {
        method: "POST",
        ...init,
        headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json", ...init.headers },
      }),
      { remoteAddr: { hostname: "198.51.100.9" } },
    );
  return { store, log, background, emailed, call };
}

async function errorCode(response: Response): Promise<string> {
  const json = await response.json();
  assert.equal(json.success, false);
  return json.error.code;
}

Deno.test("createOrderHandler() answers 200 with exactly the contract's fields, priced by the fee module", async () => {
  const { call, store } = setup();
  const response = await call({ body: JSON.stringify(body()) });
  assert.equal(response.status, 200);
  const json = await response.json();
  assert.deepEqual(Object.keys(json), [
    "success",
    "orderId",
    "orderNumber",
    "totalAmount",
    "checkoutFee",
    "finalAmount",
    "status",
  ]);
  // 0.10 x 3 = 0.30 exactly; 2.5 % of 0.30 = 0.0075 -> 0.01
  assert.deepEqual({ ...json, orderId: "-" }, {
    success: true,
    orderId: "-",
    orderNumber: "ORD-2026-000001",
    totalAmount: 0.3,
    checkoutFee: 0.01,
    finalAmount: 0.31,
    status: "payment_pending",
  });
  assert.equal(response.headers.get("x-request-id"), "req-1");
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  assert.equal(store.written[0].orderedAt, "2026-05-04T03:02:01.000Z");
  assert.equal(store.written[0].clientIp, "198.51.100.9");
  assert.deepEqual(store.written[0].rateLimits, {
    ipLimit: 5,
    ipWindowSeconds: 60,
    emailLimit: 2,
    emailWindowSeconds: 60,
  });
});

Deno.test("createOrderHandler() records a verified user's id as the order's buyer, and a refused token as a guest order", async () => {
  const USER = "5a0c8f8e-3b1a-4c2d-9e8f-0a1b2c3d4e5f";
  const userJwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln";
  const signedIn = setup({
    verifyUserToken: (jwt) => Promise.resolve(jwt === userJwt ? { sub: USER, role: "authenticated" } : null),
  });
  const headers = { Authorization: `Bearer ${userJwt}`, apikey: KEY };
  assert.equal((await signedIn.call({ body: JSON.stringify(body()), headers })).status, 200);
  assert.equal(signedIn.store.written[0].buyerUserId, USER);

  const refused = setup({ verifyUserToken: () => Promise.resolve(null) });
  assert.equal((await refused.call({ body: JSON.stringify(body()), headers })).status, 200);
  assert.equal(refused.store.written[0].buyerUserId, null);
  // the key alone, as a storefront without a signed-in buyer sends it
  const guest = setup();
  assert.equal((await guest.call({ body: JSON.stringify(body()) })).status, 200);
  assert.equal(guest.store.written[0].buyerUserId, null);
});

Deno.test("createOrderHandler() gives the store a deadline of the order's time plus DATABASE_TIMEOUT_MS", async () => {
  const { call, store } = setup();
  assert.equal((await call({ body: JSON.stringify(body()) })).status, 200);
  assert.equal(store.written[0].orderedAt, "2026-05-04T03:02:01.000Z");
  assert.deepEqual(store.deadlines, [new Date("2026-05-04T03:02:07.000Z")]);
});

Deno.test("createOrderHandler() answers 404 for an unknown product at a huge price: no limit from submitted prices runs first", async () => {
  const { call, store } = setup();
  const items = [{ productId: crypto.randomUUID(), quantity: 10_000, price: 9_999_999_999.99 }];
  assert.equal(await errorCode(await call({ body: JSON.stringify(body({ items })) })), "PRODUCT_NOT_FOUND");
  assert.equal(store.calls, 1);
});

Deno.test("createOrderHandler() answers a CORS preflight with 204 and no key", async () => {
  const { call } = setup({ allowedOrigins: ["https://shop.example"] });
  const response = await call({
    method: "OPTIONS",
    headers: { Authorization: "", Origin: "https://shop.example" },
  });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get("access-control-allow-origin"), "https://shop.example");
  assert.equal(response.headers.get("access-control-allow-methods"), "POST, OPTIONS");
  assert.equal(response.headers.get("access-control-max-age"), "86400");
  assert.match(response.headers.get("access-control-allow-headers")!, /idempotency-key/);
});

Deno.test("createOrderHandler() answers 405 METHOD_NOT_ALLOWED with Allow before checking the key", async (t) => {
  for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
    await t.step(method, async () => {
      const { call } = setup();
      const response = await call({ method, headers: { Authorization: "" } });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get("allow"), "POST, OPTIONS");
      assert.equal(await errorCode(response), "METHOD_NOT_ALLOWED");
    });
  }
});

Deno.test("createOrderHandler() answers 401 before any validation, with CORS and WWW-Authenticate", async () => {
  const { call, store } = setup();
  const response = await call({
    body: "{not json",
    headers: { Authorization: "Bearer wrong", Origin: "https://a.example" },
  });
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("www-authenticate"), "Bearer");
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  assert.equal(await errorCode(response), "UNAUTHORIZED");
  assert.equal(store.calls, 0);
});

Deno.test("createOrderHandler() refuses a key in the query string or the body", async () => {
  const { store } = setup();
  const handle = createOrderHandler({
    config: {
      apiKeys: { public: [KEY], service: [] },
      allowedOrigins: ["*"],
      rateLimits: { perIp: { limit: 0, windowSeconds: 1 }, perEmail: { limit: 0, windowSeconds: 1 } },
      databaseTimeoutMs: 6_000,
    },
    clock: () => new Date(),
    orders: store,
    verifyUserToken: () => Promise.resolve(null),
    sendOrderEmails: () => Promise.resolve(),
    waitUntil: () => {},
    log: () => {},
  });
  const inQuery = await handle(
    new Request(`${URL_}?apikey=${KEY}&access_token=${KEY}`, {
      method: "POST",
      body: JSON.stringify(body()),
    }),
  );
  assert.equal(inQuery.status, 401);
  const inBody = await handle(
    new Request(URL_, { method: "POST", body: JSON.stringify({ ...body(), apikey: KEY }) }),
  );
  assert.equal(inBody.status, 401);
});

Deno.test("createOrderHandler() answers 413 PAYLOAD_TOO_LARGE over 64 KiB, declared or streamed", async () => {
  const { call, store } = setup();
  const big = JSON.stringify(body({ buyerName: "x".repeat(70_000) }));
  const declared = await call({ body: big });
  assert.equal(declared.status, 413);
  assert.equal(await errorCode(declared), "PAYLOAD_TOO_LARGE");
  const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      sent++;
      if (sent > 100) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const streamed = await call({ body: stream });
  assert.equal(streamed.status, 413);
  assert.ok(sent <= 6, `read ${sent} chunks: the reader must stop at the limit`);
  assert.equal(store.calls, 0);
});

Deno.test("createOrderHandler() accepts a body of exactly 64 KiB", async () => {
  const { call } = setup();
  const json = JSON.stringify(body());
  const padded = json.slice(0, -1) + " ".repeat(64 * 1024 - json.length) + "}";
  assert.equal(new TextEncoder().encode(padded).length, 64 * 1024);
  assert.equal((await call({ body: padded })).status, 200);
});

Deno.test("createOrderHandler() answers 400 INVALID_JSON for a body that is not JSON", async (t) => {
  for (const text of ["", "{", "{'a':1}", "undefined"]) {
    await t.step(JSON.stringify(text), async () => {
      const { call, store } = setup();
      const response = await call({ body: text });
      assert.equal(response.status, 400);
      assert.equal(await errorCode(response), "INVALID_JSON");
      assert.equal(store.calls, 0);
    });
  }
});

Deno.test("createOrderHandler() answers 400 VALIDATION_FAILED with a path/message list and stores nothing", async () => {
  const { call, store } = setup();
  const response = await call({
    body: JSON.stringify(body({ items: [{ productId: PRODUCT_ID, quantity: 0, price: 1 }] })),
  });
  assert.equal(response.status, 400);
  const json = await response.json();
  assert.equal(json.error.code, "VALIDATION_FAILED");
  assert.deepEqual(json.error.details.map((d: { path: string }) => d.path), ["items.0.quantity"]);
  assert.equal(typeof json.error.details[0].message, "string");
  assert.equal(store.calls, 0);
});

Deno.test("createOrderHandler() answers 400 VALIDATION_FAILED for a malformed Idempotency-Key", async () => {
  const { call, store } = setup();
  const response = await call({
    body: JSON.stringify(body()),
    headers: { "Idempotency-Key": "a".repeat(256) },
  });
  assert.equal(response.status, 400);
  assert.equal(await errorCode(response), "VALIDATION_FAILED");
  assert.equal(store.calls, 0);
});

Deno.test("createOrderHandler() passes the Idempotency-Key with the SHA-256 of the exact body", async () => {
  const { call, store } = setup();
  await call({ body: "{}", headers: { "Idempotency-Key": "k" } }).then((r) => r.body?.cancel());
  const text = JSON.stringify(body());
  await call({ body: text, headers: { "Idempotency-Key": "checkout-1" } });
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  assert.deepEqual(store.written[0].idempotency, { key: "checkout-1", requestHash: hex });
});

Deno.test("createOrderHandler() queues the claimed e-mails after answering, and none on a replay", async () => {
  const results = [storedOrder(false, [EMAIL]), storedOrder(true)];
  const { call, emailed, background } = setup({
    orders: { createOrder: () => Promise.resolve(results.shift()!) },
  });
  const first = await call({ body: JSON.stringify(body()) });
  assert.equal(first.headers.get("idempotent-replayed"), null);
  const replay = await call({ body: JSON.stringify(body()) });
  assert.equal(replay.headers.get("idempotent-replayed"), "true");
  assert.equal((await replay.json()).orderId, "o1");
  await Promise.all(background);
  assert.deepEqual(emailed, [[EMAIL]]);
});

Deno.test("createOrderHandler() renders a database outage as 500 INTERNAL_ERROR and logs its cause by request id", async () => {
  const outage: OrderStore = {
    createOrder: () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:5432 select * from "orders"')),
  };
  const { call, log } = setup({ orders: outage });
  const response = await call({ body: JSON.stringify(body()) });
  assert.equal(response.status, 500);
  assert.deepEqual(await response.json(), {
    success: false,
    error: { code: "INTERNAL_ERROR", message: "Internal error" },
  });
  const line = JSON.parse(log.lines.at(-1)!);
  assert.equal(line.requestId, "req-1");
  assert.equal(line.status, 500);
  assert.equal(line.code, "INTERNAL_ERROR");
  assert.match(line.message, /ECONNREFUSED/);
});

Deno.test("createOrderHandler() logs one line per request with status, duration, order id and no personal data", async () => {
  const { call, log } = setup();
  await call({ body: JSON.stringify(body()) });
  assert.equal(log.lines.length, 1);
  const line = JSON.parse(log.lines[0]);
  assert.deepEqual(Object.keys(line).sort(), [
    "buyer",
    "durationMs",
    "event",
    "method",
    "orderId",
    "requestId",
    "status",
  ]);
  for (const secret of ["asha@example.com", "Asha", "+919876543210", "MG Road", KEY]) {
    assert.ok(!log.lines[0].includes(secret), `log line contains ${secret}`);
  }
});

Deno.test("createOrderHandler() passes domain failures of the store through with their code", async (t) => {
  for (
    const code of [
      "STORE_NOT_FOUND",
      "PRICE_MISMATCH",
      "VARIANT_REQUIRED",
      "IDEMPOTENCY_KEY_IN_USE",
      "IDEMPOTENCY_KEY_REUSED",
    ] as const
  ) {
    await t.step(code, async () => {
      const { call } = setup({ orders: { createOrder: () => Promise.reject(new OrderError(code, "x")) } });
      assert.equal(await errorCode(await call({ body: JSON.stringify(body()) })), code);
    });
  }
});

Deno.test("createOrderHandler() answers PRICE_MISMATCH with each submittedPrice as the request carried it", async () => {
  // the database reports what it compared: a price above numeric(12,2) travels as the first amount beyond it
  const details = [
    { index: 1, productId: PRODUCT_ID, variantId: null, price: 0.1, submittedPrice: 10_000_000_000 },
  ];
  const { call } = setup({
    orders: { createOrder: () => Promise.reject(new OrderError("PRICE_MISMATCH", "x", { details })) },
  });
  const response = await call({
    body: JSON.stringify(body({
      items: [{ productId: PRODUCT_ID, quantity: 1, price: 0.1 }, {
        productId: PRODUCT_ID,
        quantity: 1,
        price: 1e21,
      }],
    })),
  });
  assert.equal(response.status, 400);
  assert.deepEqual((await response.json()).error.details, [{ ...details[0], submittedPrice: 1e21 }]);
});

Deno.test("createOrderHandler() answers without waiting for the e-mails to be sent", async () => {
  const { call, background } = setup({
    orders: { createOrder: () => Promise.resolve(storedOrder(false, [EMAIL])) },
    sendOrderEmails: () => new Promise<void>(() => {}), // a provider that never answers
  });
  const response = await call({ body: JSON.stringify(body()) });
  assert.equal(response.status, 200);
  assert.equal(background.length, 1);
});
