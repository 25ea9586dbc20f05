/**
 * track-order: a guest buyer's tracking link. The handler with an in-memory tracking port for the token
 * rules, then the local stack over both databases for what the answer holds and the e-mail's link.
 */
import assert from "node:assert/strict";
import { trackOrderHandler } from "../supabase/functions/track-order/handler.ts";
import type { OrderTracking, TrackedOrder } from "../supabase/functions/_shared/orders/order_tracking.ts";
import { orderTrackingToken } from "../supabase/functions/_shared/orders/tracking_token.ts";
import { DEV_TRACKING_SECRET } from "../supabase/functions/_shared/config.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";

const SECRET = "test-tracking-secret-of-32-characters";
const ORDER_ID = "58f64d93-1c2b-4d5e-8f90-a1b2c3d4e5f6";

function trackedOrder(orderId: string): TrackedOrder {
  return {
    orderId,
    orderNumber: "ORD-2026-000007",
    status: "payment_pending",
    createdAt: "2026-11-23T10:00:00+00:00",
    storeName: "Chai & Co.",
    timeZone: "Asia/Kolkata",
    currency: "INR",
    paymentMethod: "gateway",
    gatewayMethod: "card",
    items: [{
      productName: "Assam Tea 250 g",
      variantName: null,
      quantity: 2,
      unitPrice: 349,
      lineTotal: 698,
    }],
    totalAmount: 698,
    checkoutFee: 17.45,
    finalAmount: 715.45,
    history: [{ status: "payment_pending", at: "2026-11-23T10:00:00+00:00" }],
    shipment: null,
  };
}

function setup() {
  const asked: string[] = [];
  const tracking: OrderTracking = {
    trackOrder(orderId) {
      asked.push(orderId);
      return Promise.resolve(orderId === ORDER_ID ? trackedOrder(orderId) : null);
    },
  };
  const handle = trackOrderHandler({
    config: {
      apiKeys: { public: ["anon"], service: ["service"] },
      allowedOrigins: ["*"],
      trackingSecret: SECRET,
    },
    tracking,
    log: () => {},
  });
  const get = (query: string, init: RequestInit = {}) =>
    handle(new Request(`http://localhost/functions/v1/track-order${query}`, init));
  return { asked, get };
}

Deno.test("GET track-order answers one 404 ORDER_NOT_FOUND for an unknown order and a wrong, missing or malformed token, asking the database only with a right token", async () => {
  const { asked, get } = setup();
  const token = await orderTrackingToken(SECRET, ORDER_ID);
  const unknown = crypto.randomUUID();
  const cases: [string, string][] = [
    ["wrong token", `?order=${ORDER_ID}&token=${await orderTrackingToken(SECRET, unknown)}`],
    [
      "token of another secret",
      `?order=${ORDER_ID}&token=${await orderTrackingToken(`${SECRET}x`, ORDER_ID)}`,
    ],
    ["missing token", `?order=${ORDER_ID}`],
    ["malformed token", `?order=${ORDER_ID}&token=abc`],
    ["malformed order", `?order=42&token=${token}`],
    ["no query", ""],
    [
      "unknown order with its own right token",
      `?order=${unknown}&token=${await orderTrackingToken(SECRET, unknown)}`,
    ],
  ];
  const bodies = new Set<string>();
  for (const [label, query] of cases) {
    const res = await get(query);
    assert.equal(res.status, 404, label);
    assert.equal(res.headers.get("cache-control"), "no-store", label);
    bodies.add(await res.text());
  }
  assert.deepEqual([...bodies].map((b) => JSON.parse(b)), [{
    success: false,
    error: { code: "ORDER_NOT_FOUND", message: "No order matches this tracking link" },
  }]);
  // only the unknown order with a right token reached the database
  assert.deepEqual(asked, [unknown]);

  const found = await get(`?order=${ORDER_ID.toUpperCase()}&token=${token}&utm_source=email`);
  assert.equal(found.status, 200);
  assert.deepEqual(await found.json(), { success: true, ...trackedOrder(ORDER_ID) });
});

Deno.test("GET track-order needs no key, answers 405 to other methods and a CORS preflight for GET", async () => {
  const { get } = setup();
  const token = await orderTrackingToken(SECRET, ORDER_ID);
  const res = await get(`?order=${ORDER_ID}&token=${token}`, { headers: { Origin: "https://shop.example" } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  await res.body?.cancel();
  const post = await get(`?order=${ORDER_ID}&token=${token}`, { method: "POST", body: "{}" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, OPTIONS");
  await post.body?.cancel();
  const preflight = await get("", { method: "OPTIONS", headers: { Origin: "https://shop.example" } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, OPTIONS");
});

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("GET track-order shows the order's number, status, history, items and amounts, never the buyer's e-mail, phone or address", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: { ORDER_TRACKING_SECRET: SECRET } });
    try {
      const body = orderBody(store, {
        items: [
          { productId: store.products[0].id, quantity: 2, price: 349 },
          { productId: store.products[2].id, variantId: store.variants[1].id, quantity: 1, price: 299 },
        ],
      });
      const created = await (await stack.post(body)).json();
      const token = await orderTrackingToken(SECRET, created.orderId);
      const res = await fetch(
        `${stack.url}/functions/v1/track-order?order=${created.orderId}&token=${token}`,
      );
      assert.equal(res.status, 200);
      const text = await res.text();
      const answer = JSON.parse(text);
      assert.deepEqual(Object.keys(answer), [
        "success",
        "orderId",
        "orderNumber",
        "status",
        "createdAt",
        "storeName",
        "timeZone",
        "currency",
        "paymentMethod",
        "gatewayMethod",
        "items",
        "totalAmount",
        "checkoutFee",
        "finalAmount",
        "history",
        "shipment",
      ]);
      assert.deepEqual({
        ...answer,
        createdAt: "-",
        history: answer.history.map((h: { status: string }) => h.status),
      }, {
        success: true,
        orderId: created.orderId,
        orderNumber: created.orderNumber,
        status: "payment_pending",
        createdAt: "-",
        storeName: "Test Store",
        timeZone: "Asia/Kolkata",
        currency: "INR",
        paymentMethod: "upi_direct",
        gatewayMethod: null,
        items: [
          { productName: "Assam Tea 250 g", variantName: null, quantity: 2, unitPrice: 349, lineTotal: 698 },
          {
            productName: "Steel Tumbler",
            variantName: "Large 400 ml",
            quantity: 1,
            unitPrice: 299,
            lineTotal: 299,
          },
        ],
        totalAmount: 997,
        checkoutFee: 0,
        finalAmount: 997,
        history: ["payment_pending"],
        shipment: null,
      });
      for (
        const secret of [
          "asha@example.com",
          "+919876543210",
          "9876543210",
          "MG Road",
          "Pune",
          "411001",
          "proofs",
        ]
      ) {
        assert.ok(!text.includes(secret), `the answer shows ${secret}`);
      }
      await stack.settled();
    } finally {
      await stack.close();
    }
  });

  test("GET track-order answers the store's time zone and the gateway method the order was priced with", async () => {
    const store = await createTestStore(db);
    await db.query("update public.stores set time_zone = 'Europe/Berlin' where id = $1", [store.storeId]);
    const stack = await startTestStack({ db, env: { ORDER_TRACKING_SECRET: SECRET } });
    try {
      const body = orderBody(store, {
        paymentMethod: "gateway",
        gatewayMethod: "wallet",
        paymentProofUrl: null,
      });
      const created = await (await stack.post(body)).json();
      const token = await orderTrackingToken(SECRET, created.orderId);
      const answer = await (await fetch(
        `${stack.url}/functions/v1/track-order?order=${created.orderId}&token=${token}`,
      )).json();
      assert.deepEqual(
        [answer.timeZone, answer.paymentMethod, answer.gatewayMethod, answer.checkoutFee],
        ["Europe/Berlin", "gateway", "wallet", 13.96], // 698.00 at 2 %
      );
      await stack.settled();
    } finally {
      await stack.close();
    }
  });

  test("the buyer e-mail's tracking link opens the local tracking page and its order, and follows a status change", async () => {
    const store = await createTestStore(db);
    const mailer = capturingMailer();
    // no ORDER_TRACKING_URL or secret set: the stack's own page and the development secret
    const stack = await startTestStack({ db, mailer: () => Promise.resolve(mailer) });
    try {
      const created = await (await stack.post(orderBody(store))).json();
      await stack.settled();
      const buyerMail = mailer.messages.find((m) => m.idempotencyKey === `order/${created.orderId}/buyer`)!;
      const link = new URL(/Track your order: (\S+)/.exec(buyerMail.text)![1]);
      assert.equal(link.origin + link.pathname, `${stack.url}/track`);
      assert.equal(link.searchParams.get("order"), created.orderId);
      assert.equal(
        link.searchParams.get("token"),
        await orderTrackingToken(DEV_TRACKING_SECRET, created.orderId),
      );

      const page = await fetch(link);
      assert.equal(page.status, 200);
      assert.ok((await page.text()).includes(`"${stack.url}/functions/v1/track-order"`));

      const track = () => fetch(`${stack.url}/functions/v1/track-order${link.search}`).then((r) => r.json());
      assert.equal((await track()).status, "payment_pending");
      await db.asRole(
        "postgres", // the tables' owner: no API role updates orders
        (s) => s.query("update public.orders set status = 'cancelled' where id = $1", [created.orderId]),
      );
      const after = await track();
      assert.equal(after.status, "cancelled");
      assert.deepEqual(after.history.map((h: { status: string }) => h.status), [
        "payment_pending",
        "cancelled",
      ]);
    } finally {
      await stack.close();
    }
  });
}
