/**
 * verify-payment over HTTP on the local stack, with payments made on the fake Razorpay's checkout: Checkout's
 * signature checked before anything is stored, the payment read from Razorpay and captured when only
 * authorized, and the decision the webhook's own (one per Razorpay payment, whichever comes first, one
 * `paid` e-mail), with Razorpay's failures answered 502 and nothing stored.
 */
import assert from "node:assert/strict";
import { checkoutSignature } from "../supabase/functions/_shared/payments/checkout_signature.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import {
  CARD_ORDER_PAISE,
  ledgerRows,
  placeOrder,
  postFunction,
  startPayment,
  verifyBody,
} from "./support/payments.ts";
import { orderStatus } from "./support/status_moves.ts";

/** The buyer `paid` e-mails the stack's mailer sent for the order. */
function paidEmails(stack: { mail: { sent: { idempotencyKey: string }[] } }, orderId: string) {
  return stack.mail.sent.filter((email) => email.idempotencyKey === `order/${orderId}/status/paid`);
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** A stack whose fake Razorpay holds its webhooks until a test releases them. */
  const heldStack = async (env: Record<string, string> = {}) => {
    const stack = await startTestStack({ db, env });
    stack.razorpay!.webhooks.held = true;
    return stack;
  };

  /** What a test of one payment starts from: an order placed (card) and its payment opened by start-payment. */
  type Opened = {
    stack: Awaited<ReturnType<typeof heldStack>>;
    orderId: string;
    orderNumber: string;
    started: Awaited<ReturnType<typeof startPayment>>;
  };

  /** A test run on a held stack (with `env`) and an {@linkcode Opened} payment; the stack closed after. */
  const testOpened = (
    title: string,
    fn: (opened: Opened) => Promise<void>,
    env: Record<string, string> = {},
  ) =>
    test(title, async () => {
      const stack = await heldStack(env);
      try {
        const { orderId, orderNumber } = await placeOrder(db);
        await fn({ stack, orderId, orderNumber, started: await startPayment(stack, orderId) });
      } finally {
        await stack.close();
      }
    });

  testOpened(
    "POST verify-payment pays the order for a payment captured on Checkout: 200 { success, orderId, orderNumber, status: paid, outcome: paid }, one paid e-mail",
    async ({ stack, orderId, orderNumber, started }) => {
      const answer = await stack.razorpay!.pay(started.providerOrderId, { method: "card" });
      const response = await postFunction(stack, "verify-payment", verifyBody(orderId, answer));
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        success: true,
        orderId,
        orderNumber,
        status: "paid",
        outcome: "paid",
      });
      await stack.settled();
      assert.equal(await orderStatus(db, orderId), "paid");
      const paymentId = verifyBody(orderId, answer).razorpayPaymentId;
      assert.deepEqual(await ledgerRows(db, orderId), [
        {
          provider_event_id: `checkout:${paymentId}`,
          provider_payment_id: paymentId,
          outcome: "paid",
          amount: "715.45",
        },
      ]);
      assert.equal(paidEmails(stack, orderId).length, 1);
    },
  );

  testOpened(
    "an authorized payment is captured by POST verify-payment, then pays the order",
    async ({ stack, orderId, started }) => {
      const answer = await stack.razorpay!.pay(started.providerOrderId, {
        method: "upi",
        outcome: "authorized",
      });
      const body = verifyBody(orderId, answer);
      const response = await postFunction(stack, "verify-payment", body);
      assert.equal(response.status, 200);
      assert.equal((await response.json()).outcome, "paid");
      const fake = stack.razorpay!;
      assert.deepEqual(fake.requests.filter((r) => r.operation === "payments.capture").map((r) => r.body), [
        { amount: CARD_ORDER_PAISE, currency: "INR" },
      ]);
      assert.equal(fake.ledger.payments.get(body.razorpayPaymentId)!.status, "captured");
      assert.equal(await orderStatus(db, orderId), "paid");
    },
  );

  testOpened(
    "POST verify-payment then the webhooks of the same payment make one decision: the webhook's events are already_paid, one paid e-mail",
    async ({ stack, orderId, started }) => {
      // as docs/integrate.md's Checkout snippet opens it: the order's id in the payment's notes
      const answer = await stack.razorpay!.pay(started.providerOrderId, { notes: { orderId } });
      const body = verifyBody(orderId, answer);
      assert.equal((await (await postFunction(stack, "verify-payment", body)).json()).outcome, "paid");
      await stack.razorpay!.webhooks.release();
      const deliveries = stack.razorpay!.webhooks.deliveries.filter((d) => d.event !== "payment.authorized");
      assert.deepEqual(deliveries.map((d) => [d.event, d.status]), [["payment.captured", 200], [
        "order.paid",
        200,
      ]]);
      await stack.settled();
      assert.deepEqual(
        (await ledgerRows(db, orderId)).map((row) => [row.provider_event_id, row.outcome]).sort(),
        [
          [`checkout:${body.razorpayPaymentId}`, "paid"],
          [deliveries[0].eventId, "already_paid"],
          [deliveries[1].eventId, "already_paid"],
        ].sort(),
      );
      assert.equal(paidEmails(stack, orderId).length, 1);
    },
  );

  testOpened(
    "the webhook first, then POST verify-payment of the same payment: one decision, verify-payment answers already_paid and status paid",
    async ({ stack, orderId, orderNumber, started }) => {
      const answer = await stack.razorpay!.pay(started.providerOrderId);
      await stack.razorpay!.webhooks.release();
      await stack.settled();
      const response = await postFunction(stack, "verify-payment", verifyBody(orderId, answer));
      assert.deepEqual(await response.json(), {
        success: true,
        orderId,
        orderNumber,
        status: "paid",
        outcome: "already_paid",
      });
      await stack.settled();
      assert.equal((await ledgerRows(db, orderId)).filter((row) => row.outcome === "paid").length, 1);
      assert.equal(paidEmails(stack, orderId).length, 1);
    },
  );

  test("POST verify-payment and the webhooks racing for one payment: one paid row and one paid e-mail, whatever the order of arrival", async () => {
    const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "0" } });
    try {
      for (let round = 0; round < 5; round++) {
        const { orderId } = await placeOrder(db);
        const started = await startPayment(stack, orderId);
        // the fake sends its webhooks at once: they race with verify-payment
        const answer = await stack.razorpay!.pay(started.providerOrderId);
        const response = await postFunction(stack, "verify-payment", verifyBody(orderId, answer));
        assert.equal(response.status, 200);
        assert.ok(["paid", "already_paid"].includes((await response.json()).outcome));
        await stack.razorpay!.webhooks.settled();
        await stack.settled();
        assert.equal((await ledgerRows(db, orderId)).filter((row) => row.outcome === "paid").length, 1);
        assert.equal(paidEmails(stack, orderId).length, 1);
      }
    } finally {
      await stack.close();
    }
  });

  testOpened(
    "POST verify-payment answers 400 PAYMENT_SIGNATURE_INVALID to a wrong signature, storing nothing and asking Razorpay nothing",
    async ({ stack, orderId, started }) => {
      const body = verifyBody(orderId, await stack.razorpay!.pay(started.providerOrderId));
      const before = stack.razorpay!.requests.length;
      const forgeries = [
        { ...body, razorpaySignature: "0".repeat(64) },
        {
          ...body,
          razorpaySignature: await checkoutSignature(body.razorpayOrderId, body.razorpayPaymentId, "guess"),
        },
        // a real signature of another payment id
        { ...body, razorpayPaymentId: "pay_Other000000001" },
      ];
      for (const forged of forgeries) {
        const response = await postFunction(stack, "verify-payment", forged);
        assert.equal(response.status, 400);
        assert.equal((await response.json()).error.code, "PAYMENT_SIGNATURE_INVALID");
      }
      assert.equal(stack.razorpay!.requests.length, before);
      assert.deepEqual(await ledgerRows(db, orderId), []);
      assert.equal(await orderStatus(db, orderId), "payment_pending");
    },
  );

  test("POST verify-payment answers 409 PAYMENT_ORDER_MISMATCH for a Razorpay order that is not the one kept for the order", async () => {
    const stack = await heldStack();
    try {
      const ours = await placeOrder(db);
      const other = await placeOrder(db);
      await startPayment(stack, ours.orderId);
      const otherStarted = await startPayment(stack, other.orderId);
      // a genuine payment of the other order, sent as if it paid ours
      const answer = await stack.razorpay!.pay(otherStarted.providerOrderId);
      const response = await postFunction(stack, "verify-payment", verifyBody(ours.orderId, answer));
      assert.equal(response.status, 409);
      assert.equal((await response.json()).error.code, "PAYMENT_ORDER_MISMATCH");
      // an order start-payment never opened
      const unopened = await placeOrder(db);
      const again = await postFunction(stack, "verify-payment", verifyBody(unopened.orderId, answer));
      assert.equal((await again.json()).error.code, "PAYMENT_ORDER_MISMATCH");
      assert.deepEqual(await ledgerRows(db, ours.orderId), []);
      assert.equal(await orderStatus(db, ours.orderId), "payment_pending");
    } finally {
      await stack.close();
    }
  });

  testOpened(
    "POST verify-payment answers 409 PAYMENT_NOT_CAPTURED { status } for a failed payment, and 404 for an unknown order",
    async ({ stack, orderId, started }) => {
      const failed = await stack.razorpay!.pay(started.providerOrderId, { outcome: "failed" });
      assert.ok("error" in failed);
      const paymentId = failed.error.metadata.payment_id!;
      // signed as only Razorpay could: the test holds the fake's secret
      const body = {
        orderId,
        razorpayOrderId: started.providerOrderId,
        razorpayPaymentId: paymentId,
        razorpaySignature: await checkoutSignature(
          started.providerOrderId,
          paymentId,
          stack.razorpay!.keySecret,
        ),
      };
      const response = await postFunction(stack, "verify-payment", body);
      assert.equal(response.status, 409);
      assert.deepEqual((await response.json()).error.details, { status: "failed" });
      const unknown = await postFunction(stack, "verify-payment", { ...body, orderId: crypto.randomUUID() });
      assert.equal(unknown.status, 404);
      assert.equal((await unknown.json()).error.code, "ORDER_NOT_FOUND");
      assert.deepEqual(await ledgerRows(db, orderId), []);
    },
  );

  testOpened(
    "POST verify-payment answers 502 PAYMENT_PROVIDER_ERROR and stores nothing when Razorpay errors or is silent; the same call then pays",
    async ({ stack, orderId, started }) => {
      const body = verifyBody(
        orderId,
        await stack.razorpay!.pay(started.providerOrderId, { outcome: "authorized" }),
      );
      stack.razorpay!.fail("payments.fetch", "error", "hang");
      stack.razorpay!.fail("payments.capture", "error");
      for (const failure of ["fetch error", "fetch silence", "capture error"]) {
        const response = await postFunction(stack, "verify-payment", body);
        assert.equal(response.status, 502, failure);
        assert.equal((await response.json()).error.code, "PAYMENT_PROVIDER_ERROR");
        assert.deepEqual(await ledgerRows(db, orderId), [], failure);
      }
      const paid = await postFunction(stack, "verify-payment", body);
      assert.equal((await paid.json()).outcome, "paid");
    },
    { PAYMENT_PROVIDER_TIMEOUT_MS: "300" },
  );

  testOpened(
    "a capture Razorpay did but whose answer was lost still pays: POST verify-payment reads the payment again",
    async ({ stack, orderId, started }) => {
      const body = verifyBody(
        orderId,
        await stack.razorpay!.pay(started.providerOrderId, { outcome: "authorized" }),
      );
      stack.razorpay!.fail("payments.capture", "act-then-fail");
      const response = await postFunction(stack, "verify-payment", body);
      assert.equal(response.status, 200);
      assert.equal((await response.json()).outcome, "paid");
    },
  );

  test("POST verify-payment answers 503 PAYMENT_PROVIDER_NOT_CONFIGURED without Razorpay's keys", async () => {
    const stack = await startTestStack({ db, env: { RAZORPAY_API_URL: "http://127.0.0.1:9" } });
    try {
      const { orderId } = await placeOrder(db);
      const response = await postFunction(stack, "verify-payment", {
        orderId,
        razorpayOrderId: "order_A",
        razorpayPaymentId: "pay_B",
        razorpaySignature: "00",
      });
      assert.equal(response.status, 503);
      assert.equal((await response.json()).error.code, "PAYMENT_PROVIDER_NOT_CONFIGURED");
    } finally {
      await stack.close();
    }
  });

  test("POST verify-payment refuses ids that are not Razorpay's and unknown fields (400 VALIDATION_FAILED)", async () => {
    const stack = await heldStack();
    try {
      const { orderId } = await placeOrder(db);
      const response = await postFunction(stack, "verify-payment", {
        orderId,
        razorpayOrderId: "../orders",
        razorpayPaymentId: "pay_B/capture",
        razorpaySignature: "",
        amount: 1,
      });
      assert.equal(response.status, 400);
      assert.deepEqual(
        (await response.json()).error.details.map((issue: { path: string }) => issue.path).sort(),
        [
          "amount",
          "razorpayOrderId",
          "razorpayPaymentId",
          "razorpaySignature",
        ],
      );
    } finally {
      await stack.close();
    }
  });
}
