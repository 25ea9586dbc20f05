/**
 * Buyer text cannot imitate our e-mail: the attacks of a past review, end to end through the local stack.
 * Each is refused at the door with the field's path, stores nothing and e-mails no one; what is accepted
 * is stored normalised (NFC text, the proof URL's serialisation).
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { countStoreRows } from "./support/store_rows.ts";

const db = await sharedPglite();
const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

Deno.test("[pglite] POST create-order answers 400 VALIDATION_FAILED at the field's path for each hostile text, storing and e-mailing nothing", async (t) => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  const address = orderBody(store).shippingAddress as Record<string, string>;
  const cases: [string, Record<string, unknown>, string][] = [
    ["a fake PAYMENT section in line2 of a upi_direct order", {
      shippingAddress: {
        ...address,
        line2:
          "Flat 4\n\nPAYMENT\nPaid online through the payment gateway, verified automatically. Ship now.",
      },
    }, "shippingAddress.line2"],
    ["U+202E reversing the subject's amount", { buyerName: "Asha \u202e00.000,1 \u20b9" }, "buyerName"],
    ["a name of U+200B only", { buyerName: "\u200b\u200b" }, "buyerName"],
    ["a name of U+3164 only", { buyerName: "\u3164" }, "buyerName"],
    ["a name of U+2800 only", { buyerName: "\u2800\u2800" }, "buyerName"],
    ["ESC in the city", { shippingAddress: { ...address, city: "Pune\u001b[31m" } }, "shippingAddress.city"],
    ["BEL in the state", { shippingAddress: { ...address, state: "MH\u0007" } }, "shippingAddress.state"],
    [
      "an isolate in line1",
      { shippingAddress: { ...address, line1: "12 \u2067MG\u2069 Road" } },
      "shippingAddress.line1",
    ],
    [
      "a buyer e-mail with CR/LF",
      { buyerEmail: "asha@example.com\r\nBcc: victim@example.com" },
      "buyerEmail",
    ],
    ["phone +0000000", { buyerPhone: "+0000000" }, "buyerPhone"],
  ];
  try {
    for (const [title, overrides, path] of cases) {
      await t.step(title, async () => {
        const res = await stack.post(orderBody(store, overrides));
        const body = await res.json();
        assert.equal(res.status, 400);
        assert.equal(body.error.code, "VALIDATION_FAILED");
        assert.deepEqual(body.error.details.map((d: { path: string }) => d.path), [path]);
      });
    }
    await stack.settled();
    assert.equal(stack.mail.sent.length, 0);
    assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order stores text NFC-normalised and the proof URL as its serialisation", async () => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  try {
    const res = await stack.post(orderBody(store, {
      buyerName: "Jose\u0301 Mu\u0308ller",
      paymentProofUrl: "https://proofs.example.com/upi/1 2.png\r\nBcc: victim@example.com",
    }));
    assert.equal(res.status, 200);
    const { orderId } = await res.json();
    const [row] = await db.query<{ buyer_name: string; payment_proof_url: string }>(
      "select buyer_name, payment_proof_url from public.orders where id = $1",
      [orderId],
    );
    assert.deepEqual(row, {
      buyer_name: "Jos\u00e9 M\u00fcller",
      payment_proof_url: "https://proofs.example.com/upi/1%202.pngBcc:%20victim@example.com",
    });
  } finally {
    await stack.close();
  }
});

Deno.test("[pglite] POST create-order accepts u=x@example.com and u@example.xn--p1ai, refuses u@example-.com and a 65-character local part", async (t) => {
  const store = await createTestStore(db);
  const stack = await startTestStack({ db, env: NO_LIMITS });
  try {
    for (
      const [buyerEmail, status] of [
        ["u=x@example.com", 200],
        ["u@example.xn--p1ai", 200],
        ["u@example-.com", 400],
        [`${"a".repeat(65)}@example.com`, 400],
      ] as const
    ) {
      await t.step(`${buyerEmail.slice(0, 30)}: ${status}`, async () => {
        const res = await stack.post(orderBody(store, { buyerEmail }));
        assert.equal(res.status, status);
        await res.body?.cancel();
      });
    }
  } finally {
    await stack.close();
  }
});
