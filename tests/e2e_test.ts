/**
 * End to end: the local stack in-process on a free port, called over real HTTP with fetch and with
 * supabase-js, its function reaching the database through supabase-js and the PostgREST stand-in.
 */
import assert from "node:assert/strict";
import { createClient, FunctionsHttpError } from "@supabase/supabase-js";
import { createTestStore } from "./support/catalogue.ts";
import { NO_ROWS, ONE_ORDER_ROWS, storeRowCounts } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { gatewayOrderBody, orderBody } from "./support/order_request.ts";

const PUBLISHABLE = "sb_publishable_e2e_test_key";

for (const { name, db } of await testDatabases()) {
  const stack = await startTestStack({
    db,
    env: {
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
      RATE_LIMIT_PER_IP: "0",
      RATE_LIMIT_PER_EMAIL: "0",
    },
  });
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST create-order creates an upi_direct order: 200, the contract's body, rows and two e-mails", async () => {
    const store = await createTestStore(db);
    const response = await stack.post(orderBody(store));
    assert.equal(response.status, 200);
    assert.match(response.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
    const json = await response.json();
    assert.deepEqual({ ...json, orderId: "-" }, {
      success: true,
      orderId: "-",
      orderNumber: `ORD-${new Date().getUTCFullYear()}-000001`,
      totalAmount: 698,
      checkoutFee: 0,
      finalAmount: 698,
      status: "payment_pending",
    });
    await stack.settled();
    assert.deepEqual(await storeRowCounts(db, store.storeId), ONE_ORDER_ROWS);
    const [order] = await db.query(
      `select payment_method, gateway_method, payment_proof_url, buyer_phone, shipping_address ->> 'country' as country
       from public.orders where id = $1`,
      [json.orderId],
    );
    assert.deepEqual(order, {
      payment_method: "upi_direct",
      gateway_method: null,
      payment_proof_url: "https://proofs.example.com/upi/123.png",
      buyer_phone: "+919876543210",
      country: "IN",
    });
    const sent = await db.query<{ kind: string; status: string }>(
      "select kind, status from public.email_outbox where order_id = $1 order by kind",
      [json.orderId],
    );
    assert.deepEqual(sent, [{ kind: "buyer", status: "sent" }, { kind: "seller", status: "sent" }]);
    assert.deepEqual(
      stack.mail.sent.filter((m) => m.idempotencyKey.includes(json.orderId)).map((m) => m.idempotencyKey)
        .sort(),
      [`order/${json.orderId}/buyer`, `order/${json.orderId}/seller`],
    );
  });

  test("POST create-order charges each gateway sub-method its fee", async (t) => {
    const store = await createTestStore(db);
    for (
      const [method, fee] of [[undefined, 17.45], ["card", 17.45], ["upi", 13.96], ["wallet", 13.96]] as const
    ) {
      await t.step(method ?? "default (card)", async () => {
        const json = await (await stack.post(gatewayOrderBody(store, method))).json();
        assert.deepEqual([json.totalAmount, json.checkoutFee, json.finalAmount], [698, fee, 698 + fee]);
      });
    }
  });

  test("supabase-js functions.invoke creates an order with the anon key", async () => {
    const store = await createTestStore(db);
    const client = createClient(stack.url, stack.anonKey);
    const { data, error } = await client.functions.invoke("create-order", { body: orderBody(store) });
    assert.equal(error, null);
    assert.equal(data.success, true);
    assert.equal(data.orderNumber.slice(-6), "000001");
  });

  test("supabase-js functions.invoke works with a publishable key sent only as apikey", async () => {
    const store = await createTestStore(db);
    const response = await fetch(`${stack.url}/functions/v1/create-order`, {
      method: "POST",
      headers: { apikey: PUBLISHABLE, "Content-Type": "application/json" },
      body: JSON.stringify(orderBody(store)),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    const client = createClient(stack.url, PUBLISHABLE);
    const { data, error } = await client.functions.invoke("create-order", { body: orderBody(store) });
    assert.equal(error, null);
    assert.equal(data.status, "payment_pending");
  });

  test("supabase-js functions.invoke reports a failure's status and contract body", async () => {
    const client = createClient(stack.url, stack.anonKey);
    const { data, error } = await client.functions.invoke("create-order", {
      body: orderBody({
        storeId: crypto.randomUUID(),
        products: [{ id: crypto.randomUUID(), name: "x", price: 1 }],
      }),
    });
    assert.equal(data, null);
    assert.ok(error instanceof FunctionsHttpError);
    const response = error.context as Response;
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, "STORE_NOT_FOUND");
  });

  test("POST create-order answers each catalogue failure with its 404 code and writes nothing", async (t) => {
    const store = await createTestStore(db);
    const other = await createTestStore(db);
    const inactive = await createTestStore(db, { active: false });
    const item = (productId: string, price: number, variantId?: string) => ({
      items: [{ productId, quantity: 1, price, ...(variantId ? { variantId } : {}) }],
    });
    const cases = [
      ["unknown store", "STORE_NOT_FOUND", orderBody({ ...store, storeId: crypto.randomUUID() })],
      ["inactive store", "STORE_NOT_FOUND", orderBody(inactive)],
      ["unknown product", "PRODUCT_NOT_FOUND", orderBody(store, item(crypto.randomUUID(), 1))],
      ["inactive product", "PRODUCT_NOT_FOUND", orderBody(store, item(store.inactiveProductId, 10))],
      ["product of another store", "PRODUCT_NOT_FOUND", orderBody(store, item(other.products[0].id, 349))],
      [
        "unknown variant",
        "VARIANT_NOT_FOUND",
        orderBody(store, item(store.products[2].id, 250, crypto.randomUUID())),
      ],
      [
        "inactive variant",
        "VARIANT_NOT_FOUND",
        orderBody(store, item(store.products[2].id, 1, store.inactiveVariantId)),
      ],
      [
        "variant of another product",
        "VARIANT_NOT_FOUND",
        orderBody(store, item(store.products[0].id, 299, store.variants[1].id)),
      ],
    ] as const;
    for (const [title, code, body] of cases) {
      await t.step(title, async () => {
        const response = await stack.post(body);
        assert.equal(response.status, 404);
        assert.equal((await response.json()).error.code, code);
      });
    }
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("POST create-order answers 400 PRICE_MISMATCH with the current prices and writes nothing", async () => {
    const store = await createTestStore(db);
    const response = await stack.post(orderBody(store, {
      items: [{ productId: store.products[1].id, quantity: 1, price: 100 }],
    }));
    assert.equal(response.status, 400);
    const json = await response.json();
    assert.equal(json.error.code, "PRICE_MISMATCH");
    assert.deepEqual(json.error.details, [
      { index: 0, productId: store.products[1].id, variantId: null, price: 199.5, submittedPrice: 100 },
    ]);
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("POST create-order answers 400 VARIANT_REQUIRED with { index, productId } for a product with variants and no variantId", async () => {
    const store = await createTestStore(db);
    const response = await stack.post(orderBody(store, {
      items: [
        { productId: store.products[0].id, quantity: 1, price: 349 },
        { productId: store.products[2].id, quantity: 1, price: 250 },
      ],
    }));
    assert.equal(response.status, 400);
    const json = await response.json();
    assert.equal(json.error.code, "VARIANT_REQUIRED");
    assert.deepEqual(json.error.details, { index: 1, productId: store.products[2].id });
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("POST create-order takes gatewayMethod null as absent: card", async () => {
    const store = await createTestStore(db);
    const response = await stack.post(gatewayOrderBody(store, undefined, { gatewayMethod: null }));
    assert.equal(response.status, 200);
    assert.equal((await response.json()).checkoutFee, 17.45); // 698.00 at card's 2.5 %
  });

  test("POST create-order answers 404 for an unknown product at a huge price, and 400 for a catalogue total too large", async () => {
    const store = await createTestStore(db);
    const unknown = await stack.post(orderBody(store, {
      items: [{ productId: crypto.randomUUID(), quantity: 10_000, price: 9_999_999_999.99 }],
    }));
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, "PRODUCT_NOT_FOUND");
    const dear = crypto.randomUUID();
    await db.query(
      "insert into public.products (id, store_id, name, price) values ($1, $2, 'Dear', 9999999999.99)",
      [
        dear,
        store.storeId,
      ],
    );
    const tooLarge = await stack.post(orderBody(store, {
      items: [{ productId: dear, quantity: 2, price: 9_999_999_999.99 }],
    }));
    assert.equal(tooLarge.status, 400);
    const json = await tooLarge.json();
    assert.equal(json.error.code, "VALIDATION_FAILED");
    assert.deepEqual(json.error.details.map((d: { path: string }) => d.path), ["items"]);
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("POST create-order consults the catalogue before any limit on a price above numeric(12,2): 404 for an unknown product, PRICE_MISMATCH with submittedPrice as sent for a known one", async (t) => {
    const store = await createTestStore(db);
    // as written in the body: JSON number literals, up to the largest finite double
    for (const price of ["10000000000", "99999999999.99", "1e21", "1.7976931348623157e308"]) {
      const send = (productId: string) =>
        stack.post(
          JSON.stringify(orderBody(store, { items: [{ productId, quantity: 10_000, price: 0 }] }))
            .replace('"price":0', `"price":${price}`),
        );
      await t.step(`${price}: an unknown product is 404 PRODUCT_NOT_FOUND`, async () => {
        const unknown = await send(crypto.randomUUID());
        assert.equal(unknown.status, 404);
        assert.equal((await unknown.json()).error.code, "PRODUCT_NOT_FOUND");
      });
      await t.step(`${price}: a known product is 400 PRICE_MISMATCH, submittedPrice ${price}`, async () => {
        const known = await send(store.products[0].id);
        assert.equal(known.status, 400);
        const json = await known.json();
        assert.equal(json.error.code, "PRICE_MISMATCH");
        assert.deepEqual(json.error.details, [
          {
            index: 0,
            productId: store.products[0].id,
            variantId: null,
            price: 349,
            submittedPrice: Number(price),
          },
        ]);
      });
    }
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("POST create-order answers 400 for an invalid body and writes nothing", async () => {
    const store = await createTestStore(db);
    const response = await stack.post(orderBody(store, { paymentProofUrl: undefined }));
    assert.equal(response.status, 400);
    assert.equal((await response.json()).error.code, "VALIDATION_FAILED");
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("POST create-order answers 401 before any validation", async () => {
    const response = await stack.post("{broken", { Authorization: "Bearer not-a-key" });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.equal((await response.json()).error.code, "UNAUTHORIZED");
  });

  test("OPTIONS create-order answers the CORS preflight over HTTP", async () => {
    const response = await fetch(`${stack.url}/functions/v1/create-order`, {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST" },
    });
    await response.body?.cancel();
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.equal(response.headers.get("access-control-allow-methods"), "POST, OPTIONS");
  });

  test("GET create-order answers 405 and a 70 KB body 413", async () => {
    const get = await fetch(`${stack.url}/functions/v1/create-order`, {
      headers: { Authorization: `Bearer ${stack.anonKey}` },
    });
    assert.equal(get.status, 405);
    assert.equal((await get.json()).error.code, "METHOD_NOT_ALLOWED");
    const big = await stack.post({ padding: "x".repeat(70_000) });
    assert.equal(big.status, 413);
    assert.equal((await big.json()).error.code, "PAYLOAD_TOO_LARGE");
  });

  test("POST create-order replays an Idempotency-Key: same order, Idempotent-Replayed, no new e-mail", async () => {
    const store = await createTestStore(db);
    const body = orderBody(store);
    const first = await stack.post(body, { "Idempotency-Key": "cart-77" });
    const firstJson = await first.json();
    await stack.settled();
    const mailsBefore = stack.mail.sent.length;
    const again = await stack.post(body, { "Idempotency-Key": "cart-77" });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(await again.json(), firstJson);
    await stack.settled();
    assert.equal(stack.mail.sent.length, mailsBefore);
    const other = await stack.post(orderBody(store, { buyerName: "Someone Else" }), {
      "Idempotency-Key": "cart-77",
    });
    assert.equal(other.status, 422);
    assert.equal((await other.json()).error.code, "IDEMPOTENCY_KEY_REUSED");
    assert.deepEqual(await storeRowCounts(db, store.storeId), { ...ONE_ORDER_ROWS, idempotency: 1 });
  });

  test("POST create-order stores nothing for a failed request with an Idempotency-Key, so a fixed retry works", async () => {
    const store = await createTestStore(db);
    const bad = await stack.post(
      orderBody(store, { items: [{ productId: store.products[0].id, quantity: 1, price: 1 }] }),
      {
        "Idempotency-Key": "retry-me",
      },
    );
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const good = await stack.post(orderBody(store), { "Idempotency-Key": "retry-me" });
    assert.equal(good.status, 200);
    assert.equal(good.headers.get("idempotent-replayed"), null);
    await good.body?.cancel();
  });

  test("the RPC stand-in refuses create_order to the anon key, as PostgREST does", async () => {
    const store = await createTestStore(db);
    const response = await fetch(`${stack.url}/rest/v1/rpc/create_order`, {
      method: "POST",
      headers: {
        apikey: stack.anonKey,
        Authorization: `Bearer ${stack.anonKey}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ payload: { storeId: store.storeId } }),
    });
    assert.equal(response.status, 401);
    assert.equal((await response.json()).code, "42501");
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("one order costs one create_order call through the RPC route", async () => {
    const store = await createTestStore(db);
    const before = stack.rpcCalls.get("create_order") ?? 0;
    for (let i = 0; i < 3; i++) await (await stack.post(orderBody(store))).body?.cancel();
    assert.equal((stack.rpcCalls.get("create_order") ?? 0) - before, 3);
  });

  Deno.test({
    name: `[${name}] local stack closes`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => stack.close(),
  });
}
