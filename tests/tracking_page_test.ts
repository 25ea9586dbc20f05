/**
 * The README's tracking page is the one the local stack serves; it shows buyer data only as text, and the
 * parcel of a shipped order (carrier, tracking number, a link only to an http(s) address). The page's own
 * script runs on a document that can build elements but parse no HTML.
 */
import assert from "node:assert/strict";
import { PLACEHOLDER_TRACK_ORDER_URL, trackingPage } from "../local/tracking_page.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { renderedLines, runPageScript } from "./support/page_script.ts";
import { postStatusMove } from "./support/status_moves.ts";

const ROOT = new URL("../", import.meta.url);

Deno.test("README shows the tracking page the local stack serves at /track, word for word", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const page = await Deno.readTextFile(new URL("local/tracking_page.html", ROOT));
  const blocks = [...readme.matchAll(/```html\n([\s\S]*?)```/g)].map((match) => match[1]);
  assert.deepEqual(blocks, [page]);
});

Deno.test("trackingPage() points the page at the stack's track-order, keeps the token out of Referer, and writes no HTML from the answer", async () => {
  const res = trackingPage("http://127.0.0.1:5555");
  assert.equal(res.headers.get("referrer-policy"), "no-referrer");
  const html = await res.text();
  assert.ok(html.includes('"http://127.0.0.1:5555/functions/v1/track-order"'));
  assert.ok(!html.includes(PLACEHOLDER_TRACK_ORDER_URL));
  assert.ok(html.includes('<meta name="referrer" content="no-referrer">'));
  assert.ok(!/innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(html));
});

/** A track-order answer for a shipped order, as the function gives it, with `shipment` as given. */
function shippedAnswer(shipment: unknown) {
  return {
    success: true,
    orderId: "0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77",
    orderNumber: "ORD-2026-000042",
    status: "shipped",
    createdAt: "2026-11-22T10:00:00.000Z",
    storeName: "Chai & Co.",
    currency: "INR",
    paymentMethod: "gateway",
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
    history: [{ status: "shipped", at: "2026-11-23T10:00:00.000Z" }],
    shipment,
  };
}

/** The page's lines for `answer`, fetched by a stand-in of track-order. */
async function linesFor(answer: unknown): Promise<string[]> {
  const html = await trackingPage("http://127.0.0.1:5555").text();
  const main = await runPageScript(
    html,
    "http://127.0.0.1:5555/track?order=0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77&token=t",
    () => Promise.resolve(Response.json(answer)),
  );
  return renderedLines(main);
}

Deno.test("the tracking page offers a 'Pay ₹… now' button while a gateway order awaits its payment, and none otherwise", async (t) => {
  const cases: [string, Record<string, unknown>, boolean][] = [
    ["a gateway order awaiting payment", { status: "payment_pending", paymentMethod: "gateway" }, true],
    ["a paid gateway order", { status: "paid", paymentMethod: "gateway" }, false],
    ["a cancelled gateway order", { status: "cancelled", paymentMethod: "gateway" }, false],
    [
      "a upi_direct order awaiting payment",
      { status: "payment_pending", paymentMethod: "upi_direct" },
      false,
    ],
  ];
  for (const [label, fields, offered] of cases) {
    await t.step(label, async () => {
      const lines = await linesFor({ ...shippedAnswer(null), ...fields });
      assert.deepEqual(
        lines.filter((line) => line.startsWith("<button>")),
        offered ? ["<button> Pay ₹715.45 now"] : [],
      );
    });
  }
});

Deno.test("trackingPage() gives the page the stack's anon key and its fake Razorpay's checkout script", async () => {
  const html = await trackingPage("http://127.0.0.1:5555", {
    anonKey: "local-anon",
    checkoutScriptUrl: "http://127.0.0.1:6666/v1/checkout.js",
  }).text();
  assert.ok(html.includes('const PUBLIC_KEY = "local-anon";'));
  assert.ok(html.includes('const LOCAL_CHECKOUT_SCRIPT = "http://127.0.0.1:6666/v1/checkout.js";'));
  // a real key id loads Razorpay's own script
  assert.ok(html.includes('"https://checkout.razorpay.com/v1/checkout.js"'));
});

Deno.test("the tracking page shows the parcel as text, and links it only to an http(s) address", async (t) => {
  const cases: [string, unknown, string[]][] = [
    ["carrier, number and link", {
      carrier: "Delhivery",
      trackingNumber: "DL445712903381",
      trackingUrl: "https://www.delhivery.com/track/package/DL445712903381",
    }, [
      "<p> Parcel: Delhivery, tracking number DL445712903381",
      '<a href="https://www.delhivery.com/track/package/DL445712903381" rel="noopener noreferrer"> Track the parcel',
    ]],
    ["a javascript: link and markup in the carrier", {
      carrier: "<img src=x onerror=alert(1)>",
      trackingNumber: null,
      trackingUrl: "javascript:alert(1)",
    }, ["<p> Parcel: <img src=x onerror=alert(1)>"]],
    [
      "a data: link only",
      { carrier: null, trackingNumber: null, trackingUrl: "data:text/html,<b>x</b>" },
      [],
    ],
    ["a number only, a link in capitals", {
      carrier: null,
      trackingNumber: "DL1",
      trackingUrl: "HTTPS://Track.example/DL1",
    }, [
      "<p> Parcel: tracking number DL1",
      '<a href="https://track.example/DL1" rel="noopener noreferrer"> Track the parcel',
    ]],
    ["not shipped yet", null, []],
  ];
  for (const [label, shipment, parcel] of cases) {
    await t.step(label, async () => {
      const lines = await linesFor(shippedAnswer(shipment));
      assert.deepEqual(lines.slice(0, 2), ["<h1> Order ORD-2026-000042", "<p> Chai & Co.: shipped"]);
      assert.deepEqual(lines.filter((line) => /^<p> Parcel|^<a /.test(line)), parcel);
    });
  }
});

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] the tracking page the buyer's shipped e-mail links to shows the carrier, tracking number and link`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const mail = capturingMailer();
      const stack = await startTestStack({ db, mailer: () => Promise.resolve(mail) });
      try {
        const { response } = await callCreateOrder(db, createOrderPayload(await createTestStore(db)));
        const { orderId } = response;
        for (
          const move of [{ status: "paid" }, { status: "processing" }, {
            status: "shipped",
            carrier: "Delhivery",
            trackingNumber: "DL445712903381",
            trackingUrl: "https://www.delhivery.com/track/package/DL445712903381",
          }]
        ) assert.equal((await postStatusMove(stack, { orderId, ...move })).status, 200);
        await stack.settled();
        const shipped = mail.messages.find((m) => m.idempotencyKey === `order/${orderId}/status/shipped`)!;
        const link = /Track your order: (\S+)/.exec(shipped.text)![1];
        assert.ok(link.startsWith(`${stack.url}/track?`), link);
        const page = await fetch(link);
        const lines = renderedLines(await runPageScript(await page.text(), link, fetch));
        assert.equal(lines[1], "<p> Test Store: shipped");
        assert.deepEqual(lines.slice(-2), [
          "<p> Parcel: Delhivery, tracking number DL445712903381",
          '<a href="https://www.delhivery.com/track/package/DL445712903381" rel="noopener noreferrer"> Track the parcel',
        ]);
      } finally {
        await stack.close();
      }
    },
  });
}
