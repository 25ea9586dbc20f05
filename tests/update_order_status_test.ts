/**
 * The update-order-status function over HTTP on the local stack, with the service key as a seller's back
 * office calls it: who may call, the lifecycle's moves (409 with the allowed ones), the no-op of a repeated
 * move, the history's actor, note and tracking, the buyer's status e-mails, and racing moves of one order.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { raceBehindRowLock } from "./support/row_lock_race.ts";
import { historyRows, orderStatus, postStatusMove, statusEmailRows } from "./support/status_moves.ts";

const PUBLISHABLE = "sb_publishable_moves_test";
const SECRET = "sb_secret_moves_test";
const ENV = {
  SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
  SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET }),
  ORDER_TRACKING_URL: "https://shop.example/orders/{orderNumber}",
};

/** A new gateway order (payment_pending) of a new store, created as the create-order function does. */
async function newOrder(db: SqlDatabase, store?: TestStore) {
  const own = store ?? await createTestStore(db);
  const { response } = await callCreateOrder(db, createOrderPayload(own));
  return { orderId: response.orderId, orderNumber: response.orderNumber, storeId: own.storeId };
}

/** A stack whose mailer keeps every message whole. */
async function _stackWithMail(db: SqlDatabase) {
  const mail = capturingMailer();
  const stack = await startTestStack({ db, env: ENV, mailer: () => Promise.resolve(mail) });
  return Object.assign(stack, { messages: mail.messages });
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  const stackWithMail = () => _stackWithMail(db);

  test("POST update-order-status answers 401 to no key and to public keys, and moves with the service or secret key", async () => {
    const stack = await startTestStack({ db, env: ENV });
    try {
      const { orderId } = await newOrder(db);
      const cases: [string, HeadersInit, number][] = [
        ["no key", {}, 401],
        ["anon key", { Authorization: `Bearer ${stack.anonKey}` }, 401],
        ["publishable key in apikey", { apikey: PUBLISHABLE }, 401],
        ["service-role key", { Authorization: `Bearer ${stack.serviceKey}` }, 200],
        ["secret key in apikey", { apikey: SECRET }, 200],
      ];
      for (const [label, headers, status] of cases) {
        const res = await postStatusMove(stack, { orderId, status: "paid" }, headers);
        assert.equal(res.status, status, label);
        const body = await res.json();
        if (status === 401) assert.equal(body.error.code, "UNAUTHORIZED", label);
      }
      assert.equal(await orderStatus(db, orderId), "paid");
      assert.deepEqual((await historyRows(db, orderId)).map((h) => h.move), [
        "->payment_pending",
        "payment_pending>paid",
      ]);
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status answers 409 INVALID_TRANSITION with the allowed moves for a forbidden move, and writes nothing", async () => {
    const stack = await stackWithMail();
    try {
      const { orderId } = await newOrder(db);
      const res = await postStatusMove(stack, {
        orderId,
        status: "shipped",
        carrier: "Delhivery",
        trackingNumber: "DL123",
      });
      assert.equal(res.status, 409);
      const body = await res.json();
      assert.equal(body.error.code, "INVALID_TRANSITION");
      assert.deepEqual(body.error.details, {
        from: "payment_pending",
        to: "shipped",
        allowed: ["paid", "cancelled"],
      });
      await stack.settled();
      assert.equal(await orderStatus(db, orderId), "payment_pending");
      assert.equal((await historyRows(db, orderId)).length, 1);
      assert.deepEqual(await statusEmailRows(db, orderId), []);
      assert.equal(stack.messages.length, 0);
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status answers a move to the status the order has with a no-op 200: one history row and one e-mail", async () => {
    const stack = await stackWithMail();
    try {
      const { orderId, orderNumber } = await newOrder(db);
      const first = await postStatusMove(stack, { orderId, status: "paid", note: "UPI proof checked" });
      assert.equal(first.status, 200);
      assert.deepEqual(await first.json(), {
        success: true,
        orderId,
        orderNumber,
        status: "paid",
        allowed: ["processing", "cancelled"],
        changed: true,
      });
      await stack.settled();
      const again = await postStatusMove(stack, { orderId, status: "paid" });
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), {
        success: true,
        orderId,
        orderNumber,
        status: "paid",
        allowed: ["processing", "cancelled"],
        changed: false,
      });
      await stack.settled();
      assert.deepEqual((await historyRows(db, orderId)).map((h) => [h.move, h.note]), [
        ["->payment_pending", null],
        ["payment_pending>paid", "UPI proof checked"],
      ]);
      assert.deepEqual(await statusEmailRows(db, orderId), [
        { kind: "status_paid", to_email: "asha@example.com", status: "sent" },
      ]);
      assert.deepEqual(stack.messages.map((m) => m.idempotencyKey), [`order/${orderId}/status/paid`]);
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status answers 404 ORDER_NOT_FOUND for an unknown order id and an unknown number of a store", async () => {
    const stack = await startTestStack({ db, env: ENV });
    try {
      const { storeId, orderNumber } = await newOrder(db);
      const cases: [string, Record<string, unknown>, unknown][] = [
        ["unknown id", { orderId: "00000000-0000-4000-8000-000000000000" }, {
          orderId: "00000000-0000-4000-8000-000000000000",
        }],
        ["unknown number", { storeId, orderNumber: "ORD-2026-999999" }, {
          storeId,
          orderNumber: "ORD-2026-999999",
        }],
        ["another store's number", { storeId: (await createTestStore(db)).storeId, orderNumber }, undefined],
      ];
      for (const [label, order, details] of cases) {
        const res = await postStatusMove(stack, { ...order, status: "paid" });
        assert.equal(res.status, 404, label);
        const body = await res.json();
        assert.equal(body.error.code, "ORDER_NOT_FOUND", label);
        if (details) assert.deepEqual(body.error.details, details, label);
      }
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status finds an order by its storeId and orderNumber", async () => {
    const stack = await startTestStack({ db, env: ENV });
    try {
      const store = await createTestStore(db);
      const first = await newOrder(db, store);
      const second = await newOrder(db, store);
      const res = await postStatusMove(stack, {
        storeId: store.storeId,
        orderNumber: second.orderNumber,
        status: "cancelled",
        note: "Out of stock",
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).orderId, second.orderId);
      assert.deepEqual(
        [await orderStatus(db, first.orderId), await orderStatus(db, second.orderId)],
        ["payment_pending", "cancelled"],
      );
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status refuses to cancel without a reason (400) and cancels with one, e-mailing it to the buyer", async () => {
    const stack = await stackWithMail();
    try {
      const { orderId, orderNumber } = await newOrder(db);
      for (const note of [undefined, null, "   "]) {
        const res = await postStatusMove(stack, { orderId, status: "cancelled", note });
        assert.equal(res.status, 400, JSON.stringify(note));
        const body = await res.json();
        assert.equal(body.error.code, "VALIDATION_FAILED");
        assert.deepEqual(body.error.details.map((d: { path: string }) => d.path), ["note"]);
      }
      assert.equal(await orderStatus(db, orderId), "payment_pending");

      const res = await postStatusMove(stack, {
        orderId,
        status: "cancelled",
        note: "Buyer asked to cancel",
      });
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).allowed, []);
      await stack.settled();
      const [, cancelled] = await historyRows(db, orderId);
      assert.deepEqual(cancelled, {
        move: "payment_pending>cancelled",
        actor: "seller",
        note: "Buyer asked to cancel",
        carrier: null,
        tracking_number: null,
        tracking_url: null,
      });
      assert.equal(stack.messages.length, 1);
      const [message] = stack.messages;
      assert.equal(message.to, "asha@example.com");
      assert.equal(message.subject, `Your order ${orderNumber} at Test Store was cancelled`);
      assert.ok(message.text.includes("REASON GIVEN BY THE STORE:\n  | Buyer asked to cancel"), message.text);
      assert.ok(message.html.includes("<bdi>Buyer asked to cancel</bdi>"));
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status records shipped with its carrier, tracking number and link, and e-mails them to the buyer", async () => {
    const stack = await stackWithMail();
    try {
      const { orderId, orderNumber } = await newOrder(db);
      for (const status of ["paid", "processing"]) {
        assert.equal((await postStatusMove(stack, { orderId, status })).status, 200);
      }
      const res = await postStatusMove(stack, {
        orderId,
        status: "shipped",
        carrier: "Delhivery",
        trackingNumber: "DL 1234 5678",
        trackingUrl: " https://track.example/dl?awb=DL 1234",
      });
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).allowed, ["delivered"]);
      await stack.settled();
      const shipped = (await historyRows(db, orderId)).at(-1);
      assert.deepEqual(shipped, {
        move: "processing>shipped",
        actor: "seller",
        note: null,
        carrier: "Delhivery",
        tracking_number: "DL 1234 5678",
        tracking_url: "https://track.example/dl?awb=DL%201234",
      });
      const message = stack.messages.find((m) => m.idempotencyKey === `order/${orderId}/status/shipped`);
      assert.ok(message, "the shipped e-mail");
      assert.equal(message.subject, `Your order ${orderNumber} at Test Store has shipped`);
      assert.ok(
        message.text.includes("  | Carrier: Delhivery\n  | Tracking number: DL 1234 5678"),
        message.text,
      );
      assert.ok(message.text.includes("Track the parcel: https://track.example/dl?awb=DL%201234"));
      assert.ok(message.html.includes('href="https://track.example/dl?awb=DL%201234"'));
      assert.ok(message.text.includes(`Track your order: https://shop.example/orders/${orderNumber}`));
      assert.deepEqual(stack.messages.map((m) => m.idempotencyKey.split("/").at(-1)), ["paid", "shipped"]);
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status e-mails the buyer at paid, shipped, delivered and cancelled, never at processing", async () => {
    const stack = await stackWithMail();
    try {
      const delivered = await newOrder(db);
      for (const status of ["paid", "processing", "shipped", "delivered"]) {
        assert.equal(
          (await postStatusMove(stack, { orderId: delivered.orderId, status })).status,
          200,
          status,
        );
      }
      const cancelled = await newOrder(db);
      for (const status of ["paid", "processing"]) {
        assert.equal(
          (await postStatusMove(stack, { orderId: cancelled.orderId, status })).status,
          200,
          status,
        );
      }
      await postStatusMove(stack, {
        orderId: cancelled.orderId,
        status: "cancelled",
        note: "Damaged in stock",
      });
      await stack.settled();
      const keys = (orderId: string) =>
        stack.messages.filter((m) => m.idempotencyKey.startsWith(`order/${orderId}/`)).map((m) =>
          m.idempotencyKey.split("/").at(-1)
        );
      assert.deepEqual(keys(delivered.orderId), ["paid", "shipped", "delivered"]);
      assert.deepEqual(keys(cancelled.orderId), ["paid", "cancelled"]);
      const refund = stack.messages.find((m) =>
        m.idempotencyKey === `order/${cancelled.orderId}/status/cancelled`
      )!;
      assert.ok(
        refund.text.includes("Test Store had confirmed receiving your payment (₹715.45)."),
        refund.text,
      );
      assert.deepEqual(
        (await historyRows(db, delivered.orderId)).map((h) => `${h.move} ${h.actor}`),
        [
          "->payment_pending system",
          "payment_pending>paid seller",
          "paid>processing seller",
          "processing>shipped seller",
          "shipped>delivered seller",
        ],
      );
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status answers 400 VALIDATION_FAILED for hostile or misplaced fields, and writes nothing", async (t) => {
    const stack = await startTestStack({ db, env: ENV });
    try {
      const { orderId, storeId, orderNumber } = await newOrder(db);
      const cases: [string, Record<string, unknown>, string[]][] = [
        ["an unknown field", { orderId, status: "paid", paid: true }, ["paid"]],
        ["an unknown status", { orderId, status: "refunded" }, ["status"]],
        ["no order", { status: "paid" }, ["storeId", "orderNumber"]],
        ["both ways to name the order", { orderId, storeId, orderNumber, status: "paid" }, ["orderId"]],
        ["a malformed number", { storeId, orderNumber: "42", status: "paid" }, ["orderNumber"]],
        ["tracking on a move to paid", { orderId, status: "paid", trackingNumber: "DL1" }, [
          "trackingNumber",
        ]],
        ["a line break in the note", { orderId, status: "paid", note: "ok\nPAYMENT verified" }, ["note"]],
        ["a bidi override in the note", { orderId, status: "paid", note: "\u202Eok" }, ["note"]],
        ["an invisible note", { orderId, status: "paid", note: "\u200B\u3164" }, ["note"]],
        ["a note of 501 characters", { orderId, status: "paid", note: "x".repeat(501) }, ["note"]],
        ["a javascript: tracking link", {
          orderId,
          status: "shipped",
          trackingUrl: "javascript:alert(1)",
        }, ["trackingUrl"]],
      ];
      for (const [label, body, paths] of cases) {
        await t.step(label, async () => {
          const res = await postStatusMove(stack, body);
          assert.equal(res.status, 400);
          const answer = await res.json();
          assert.equal(answer.error.code, "VALIDATION_FAILED");
          assert.deepEqual(answer.error.details.map((d: { path: string }) => d.path), paths);
        });
      }
      const bad = await postStatusMove(stack, "{not json");
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).error.code, "INVALID_JSON");
      assert.equal(await orderStatus(db, orderId), "payment_pending");
      assert.equal((await historyRows(db, orderId)).length, 1);
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status confirms a upi_direct order's payment, and the buyer reads that the seller confirmed it", async () => {
    const stack = await stackWithMail();
    try {
      const store = await createTestStore(db);
      const { response } = await callCreateOrder(
        db,
        createOrderPayload(store, {
          paymentMethod: "upi_direct",
          gatewayMethod: null,
          paymentProofUrl: "https://proofs.example.com/1.png",
          feeMinor: 0,
          finalMinor: 69_800,
        }),
      );
      const res = await postStatusMove(stack, { orderId: response.orderId, status: "paid" });
      assert.equal(res.status, 200);
      await stack.settled();
      const [message] = stack.messages;
      assert.equal(message.subject, `Payment received for your order ${response.orderNumber} at Test Store`);
      assert.ok(
        message.text.includes("PAYMENT\nPaid by UPI direct transfer, confirmed by the seller."),
        message.text,
      );
    } finally {
      await stack.close();
    }
  });

  test("POST update-order-status serialises racing moves of one order: one of ship and cancel wins, the rest agree", async () => {
    const stack = await stackWithMail();
    try {
      const { orderId } = await newOrder(db);
      for (const status of ["paid", "processing"]) await postStatusMove(stack, { orderId, status });
      await stack.settled();
      const before = stack.messages.length;
      const racers = 10;
      const race = () =>
        Promise.all(
          Array.from({ length: racers }, (_, i) =>
            postStatusMove(
              stack,
              i % 2 === 0
                ? { orderId, status: "shipped", trackingNumber: `T${i}` }
                : { orderId, status: "cancelled", note: `race ${i}` },
            ).then(async (res) => ({ i, status: res.status, body: await res.json() }))),
        );
      // On PostgreSQL the order row is held locked until every move has read the order and waits: all
      // of them then race for the same row at once. (PGlite runs one transaction at a time.)
      const answers = db.kind === "postgres"
        ? await raceBehindRowLock(db, orderId, racers, race)
        : await race();
      await stack.settled();
      const final = await orderStatus(db, orderId);
      assert.ok(final === "shipped" || final === "cancelled", final);
      const winners = answers.filter((a) => a.status === 200 && a.body.changed);
      assert.equal(winners.length, 1, "exactly one move changed the order");
      for (const answer of answers) {
        const wantsFinal = answer.i % 2 === 0 ? final === "shipped" : final === "cancelled";
        if (wantsFinal) assert.equal(answer.status, 200);
        else {
          assert.equal(answer.status, 409);
          assert.deepEqual(answer.body.error.details.allowed, final === "shipped" ? ["delivered"] : []);
        }
      }
      const history = await historyRows(db, orderId);
      assert.deepEqual(history.map((h) => h.move), [
        "->payment_pending",
        "payment_pending>paid",
        "paid>processing",
        `processing>${final}`,
      ]);
      assert.equal(stack.messages.length - before, 1, "one e-mail for the one move");
    } finally {
      await stack.close();
    }
  });
}
