/**
 * The storefront client (`client/`) against the real local stack through supabase-js: each outcome of
 * `createOrder` (placed, replayed, every failure a buyer can meet, a network failure, an answer that is not
 * the function's) with the code, status, details, Retry-After and request id read from the answer.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { createOrder, type CreateOrderBody, type CreateOrderResult } from "../client/mod.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const db = await sharedPglite();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const test = (name: string, fn: (t: Deno.TestContext) => Promise<void>) =>
  Deno.test({ name: `[pglite] ${name}`, sanitizeOps: false, sanitizeResources: false, fn });

function _body(store: TestStore, overrides: Partial<CreateOrderBody> = {}): CreateOrderBody {
  return {
    storeId: store.storeId,
    buyerEmail: `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`,
    buyerName: "Asha Rao",
    buyerPhone: "+91 98765 43210",
    shippingAddress: {
      line1: "12 MG Road",
      city: "Pune",
      state: "Maharashtra",
      postalCode: "411001",
      country: "in",
    },
    items: [{ productId: store.products[1].id, quantity: 2, price: 199.5 }],
    paymentMethod: "gateway",
    gatewayMethod: "upi",
    ...overrides,
  };
}

function _failed(result: CreateOrderResult) {
  if (result.ok) assert.fail(`expected a failure, got order ${result.order.orderNumber}`);
  return result;
}

async function _withStack(env: Record<string, string>, fn: (url: string, anonKey: string) => Promise<void>) {
  const stack = await startTestStack({ db, env });
  try {
    await fn(stack.url, stack.anonKey);
  } finally {
    await stack.close();
  }
}

const _supabase = (url: string, key: string) => createClient(url, key, { auth: { persistSession: false } });

test("createOrder() places an order with a new idempotency key, and the same key and body answer it again", async () => {
  const store = await createTestStore(db);
  await _withStack({}, async (url, anonKey) => {
    const supabase = _supabase(url, anonKey);
    const body = _body(store);
    const placed = await createOrder(supabase, body);
    assert.ok(placed.ok);
    assert.match(placed.idempotencyKey, UUID);
    assert.match(placed.requestId ?? "", UUID);
    assert.equal(placed.replayed, false);
    assert.deepEqual(
      { ...placed.order, orderId: "-", orderNumber: placed.order.orderNumber.slice(0, 4) },
      {
        success: true,
        orderId: "-",
        orderNumber: "ORD-",
        totalAmount: 399,
        checkoutFee: 7.98,
        finalAmount: 406.98,
        status: "payment_pending",
      },
    );
    const again = await createOrder(supabase, body, { idempotencyKey: placed.idempotencyKey });
    assert.ok(again.ok);
    assert.equal(again.replayed, true);
    assert.equal(again.order.orderId, placed.order.orderId);
    const another = await createOrder(supabase, body);
    assert.ok(another.ok);
    assert.notEqual(another.idempotencyKey, placed.idempotencyKey);
    assert.notEqual(another.order.orderId, placed.order.orderId);
  });
});

test("createOrder() reads each failure's code, status and typed details from error.context", async (t) => {
  const store = await createTestStore(db);
  await db.query("update public.products set stock_quantity = 1 where id = $1", [store.products[0].id]);
  await _withStack({}, async (url, anonKey) => {
    const supabase = _supabase(url, anonKey);
    const cases: [string, Partial<CreateOrderBody>, number, string, unknown][] = [
      [
        "a country that is not one",
        {
          shippingAddress: {
            line1: "1 Road",
            city: "Pune",
            state: "MH",
            postalCode: "411001",
            country: "ZZ",
          },
        },
        400,
        "VALIDATION_FAILED",
        [{
          path: "shippingAddress.country",
          message: 'country must be an assigned ISO 3166-1 alpha-2 code: got "ZZ"',
        }],
      ],
      [
        "an old price",
        { items: [{ productId: store.products[1].id, quantity: 1, price: 150 }] },
        400,
        "PRICE_MISMATCH",
        [{
          index: 0,
          productId: store.products[1].id,
          variantId: null,
          price: 199.5,
          submittedPrice: 150,
        }],
      ],
      [
        "no variant of a product sold in variants",
        {
          items: [{ productId: store.products[2].id, quantity: 1, price: 250 }],
        },
        400,
        "VARIANT_REQUIRED",
        { index: 0, productId: store.products[2].id },
      ],
      ["an unknown store", { storeId: "00000000-0000-4000-8000-000000000000" }, 404, "STORE_NOT_FOUND", {
        storeId: "00000000-0000-4000-8000-000000000000",
      }],
      [
        "a discontinued product",
        {
          items: [{ productId: store.inactiveProductId, quantity: 1, price: 10 }],
        },
        404,
        "PRODUCT_NOT_FOUND",
        { index: 0, productId: store.inactiveProductId },
      ],
      [
        "a retired variant",
        {
          items: [{
            productId: store.products[2].id,
            variantId: store.inactiveVariantId,
            quantity: 1,
            price: 1,
          }],
        },
        404,
        "VARIANT_NOT_FOUND",
        { index: 0, variantId: store.inactiveVariantId },
      ],
      [
        "more than the stock",
        { items: [{ productId: store.products[0].id, quantity: 2, price: 349 }] },
        409,
        "OUT_OF_STOCK",
        [{
          index: 0,
          productId: store.products[0].id,
          variantId: null,
          available: 1,
        }],
      ],
      ["a body over 64 KiB", { buyerName: "a".repeat(70_000) }, 413, "PAYLOAD_TOO_LARGE", undefined],
    ];
    for (const [name, overrides, status, code, details] of cases) {
      await t.step(`${name}: ${status} ${code}`, async () => {
        const failed = _failed(await createOrder(supabase, _body(store, overrides)));
        assert.deepEqual(
          {
            status: failed.status,
            code: failed.code,
            details: failed.details,
            retryAfter: failed.retryAfter,
          },
          { status, code, details, retryAfter: null },
        );
        assert.match(failed.requestId ?? "", UUID);
        assert.equal(typeof failed.message, "string");
      });
    }
  });
});

test("createOrder() answers 422 IDEMPOTENCY_KEY_REUSED for a key sent again with another cart", async () => {
  const store = await createTestStore(db);
  await _withStack({}, async (url, anonKey) => {
    const supabase = _supabase(url, anonKey);
    const first = await createOrder(supabase, _body(store));
    assert.ok(first.ok);
    const changed = _body(store, { items: [{ productId: store.products[1].id, quantity: 3, price: 199.5 }] });
    const reused = _failed(await createOrder(supabase, changed, { idempotencyKey: first.idempotencyKey }));
    assert.deepEqual([reused.status, reused.code, reused.idempotencyKey], [
      422,
      "IDEMPOTENCY_KEY_REUSED",
      first.idempotencyKey,
    ]);
  });
});

test("createOrder() gives RATE_LIMITED's Retry-After in seconds", async () => {
  const store = await createTestStore(db);
  await _withStack(
    { RATE_LIMIT_PER_EMAIL: "1", RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "600" },
    async (url, anonKey) => {
      const supabase = _supabase(url, anonKey);
      const body = _body(store);
      assert.ok((await createOrder(supabase, body)).ok);
      const limited = _failed(await createOrder(supabase, body));
      assert.deepEqual([limited.status, limited.code, limited.details], [429, "RATE_LIMITED", undefined]);
      assert.ok(limited.retryAfter !== null && limited.retryAfter >= 1 && limited.retryAfter <= 600);
    },
  );
});

test("createOrder() answers 401 UNAUTHORIZED for a key that is not the project's", async () => {
  const store = await createTestStore(db);
  await _withStack({}, async (url) => {
    const failed = _failed(await createOrder(_supabase(url, "not-a-project-key"), _body(store)));
    assert.deepEqual([failed.status, failed.code], [401, "UNAUTHORIZED"]);
  });
});

test("createOrder() turns a request that reaches no server into NETWORK_ERROR, status 0, keeping its key", async () => {
  const store = await createTestStore(db);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close(); // nothing listens there now
  const failed = _failed(
    await createOrder(_supabase(`http://127.0.0.1:${port}`, "key"), _body(store), {
      idempotencyKey: "attempt-1",
    }),
  );
  assert.deepEqual(
    [failed.status, failed.code, failed.idempotencyKey, failed.requestId, failed.details],
    [0, "NETWORK_ERROR", "attempt-1", null, undefined],
  );
});

test("createOrder() calls an answer that is not the function's JSON UNEXPECTED_RESPONSE: an HTML 502, a relay error", async () => {
  const store = await createTestStore(db);
  const answers = [
    () => new Response("<html>Bad gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } }),
    () => Response.json({ message: "relay" }, { status: 500, headers: { "x-relay-error": "true" } }),
  ];
  let next = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    await request.body?.cancel();
    return answers[next++]();
  });
  try {
    const supabase = _supabase(`http://127.0.0.1:${server.addr.port}`, "key");
    for (const status of [502, 500]) {
      const failed = _failed(await createOrder(supabase, _body(store)));
      assert.deepEqual([failed.status, failed.code], [status, "UNEXPECTED_RESPONSE"]);
    }
  } finally {
    await server.shutdown();
  }
});

// docs/integrate.md's "With supabase-js alone": what the client reads for you
test("supabase-js alone reports a failure as data null and a FunctionsHttpError whose context is the answer, readable once", async () => {
  const store = await createTestStore(db);
  await _withStack({}, async (url, anonKey) => {
    const body = _body(store, { items: [{ productId: store.products[1].id, quantity: 1, price: 150 }] });
    const { data, error } = await _supabase(url, anonKey).functions.invoke("create-order", {
      body,
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    assert.equal(data, null);
    assert.equal(error?.name, "FunctionsHttpError");
    assert.equal(error.message, "Edge Function returned a non-2xx status code");
    const answer: Response = error.context;
    assert.equal(answer.status, 400);
    assert.match(answer.headers.get("x-request-id") ?? "", UUID);
    const { error: failure } = await answer.json();
    assert.equal(failure.code, "PRICE_MISMATCH");
    await assert.rejects(() => answer.text(), TypeError); // the body was read
  });
});

/** A server that counts what reaches it and answers `answer()`: the other end of a client's mistakes. */
function _countingServer(answer: () => Response) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    requests++;
    await request.body?.cancel();
    return answer();
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

test("createOrder() rejects with a TypeError and sends nothing for a body JSON cannot carry: a cycle, a BigInt", async (t) => {
  const store = await createTestStore(db);
  const server = _countingServer(() => Response.json({}, { status: 500 }));
  try {
    const supabase = _supabase(server.url, "key");
    const circular = _body(store) as CreateOrderBody & { self?: unknown };
    circular.self = circular;
    const withBigInt = { ..._body(store), buyerName: 1n } as unknown as CreateOrderBody;
    const notAnObject = "an order" as unknown as CreateOrderBody;
    for (const [name, body] of [["a cycle", circular], ["a BigInt", withBigInt], ["a string", notAnObject]]) {
      await t.step(name as string, async () => {
        await assert.rejects(createOrder(supabase, body as CreateOrderBody), TypeError);
      });
    }
    assert.equal(server.requests(), 0);
  } finally {
    await server.close();
  }
});

test("createOrder() rejects with a TypeError without a supabase client", async () => {
  const store = await createTestStore(db);
  for (const supabase of [undefined, null, {}, { functions: {} }]) {
    await assert.rejects(
      createOrder(supabase as unknown as Parameters<typeof createOrder>[0], _body(store)),
      new TypeError("createOrder: the first argument must be a supabase-js client (createClient(url, key))"),
    );
  }
});

test("createOrder() calls an error body with a code it does not know UNEXPECTED_RESPONSE, keeping status, code and request id", async () => {
  const store = await createTestStore(db);
  const requestId = crypto.randomUUID();
  const server = _countingServer(() =>
    Response.json(
      { success: false, error: { code: "COUPON_EXPIRED", message: "coupon expired", details: { x: 1 } } },
      { status: 400, headers: { "x-request-id": requestId } },
    )
  );
  try {
    const failed = _failed(await createOrder(_supabase(server.url, "key"), _body(store)));
    assert.deepEqual(
      [failed.status, failed.code, failed.message, failed.details, failed.requestId],
      [400, "UNEXPECTED_RESPONSE", "unknown code COUPON_EXPIRED: coupon expired", undefined, requestId],
    );
  } finally {
    await server.close();
  }
});

/**
 * An answer of another fetch than this realm's: undici's in Node.js, or a polyfill's, whose Response is
 * another class. It has what a Response has (status, ok, headers, text, json, body), and is no `Response`.
 */
class _ForeignResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly statusText: string;
  readonly headers: Headers;
  readonly #answer: Response;
  constructor(answer: Response) {
    this.#answer = answer;
    this.status = answer.status;
    this.ok = answer.ok;
    this.statusText = answer.statusText;
    this.headers = answer.headers;
  }
  get body() {
    return this.#answer.body;
  }
  get bodyUsed() {
    return this.#answer.bodyUsed;
  }
  text() {
    return this.#answer.text();
  }
  json() {
    return this.#answer.json();
  }
  blob() {
    return this.#answer.blob();
  }
  arrayBuffer() {
    return this.#answer.arrayBuffer();
  }
}

test("createOrder() reads an error answer by its shape when supabase-js uses another fetch, whose Response is another class", async () => {
  const store = await createTestStore(db);
  await _withStack({}, async (url, anonKey) => {
    const foreignFetch = async (input: RequestInfo | URL, init?: RequestInit) =>
      new _ForeignResponse(await fetch(input, init)) as unknown as Response;
    const supabase = createClient(url, anonKey, {
      auth: { persistSession: false },
      global: { fetch: foreignFetch },
    });
    const wrongPrice = _body(store, {
      items: [{ productId: store.products[1].id, quantity: 1, price: 150 }],
    });
    const failed = _failed(await createOrder(supabase, wrongPrice));
    assert.equal(failed.code, "PRICE_MISMATCH", failed.message);
    assert.equal(failed.status, 400);
    assert.deepEqual(failed.details, [{
      index: 0,
      productId: store.products[1].id,
      variantId: null,
      price: 199.5,
      submittedPrice: 150,
    }]);
    assert.match(failed.requestId ?? "", UUID);
    const placed = await createOrder(supabase, _body(store));
    assert.ok(placed.ok, "a 200 through the other fetch is an order too");
  });
});
