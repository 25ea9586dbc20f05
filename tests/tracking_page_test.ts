/**
 * The order page (`local/tracking_page.html`, served by the local stack at /track): it shows buyer data only
 * as text, the items with the fee named after the payment method, dates in the store's time zone in Indian
 * style, the parcel of a shipped order (a link only to an http(s) address) and the Pay button while a
 * gateway order awaits its payment. The page's own script runs on a document that can build elements but
 * parse no HTML; tests/order_page_browser_test.ts shows the same page in Chromium.
 */
import assert from "node:assert/strict";
import { SHIPPED_ORDER_ANSWER } from "../openapi/operation_examples.ts";
import { PLACEHOLDER_PUBLIC_KEY, PLACEHOLDER_TRACK_ORDER_URL, trackingPage } from "../local/tracking_page.ts";
import { capturingMailer } from "./support/capturing_mailer.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { renderedLines, runPageScript } from "./support/page_script.ts";
import { postStatusMove } from "./support/status_moves.ts";

const ROOT = new URL("../", import.meta.url);

Deno.test("docs/integrate.md names the order page's file and the two values a deployment replaces in it", async () => {
  const integrate = await Deno.readTextFile(new URL("docs/integrate.md", ROOT));
  const page = await Deno.readTextFile(new URL("local/tracking_page.html", ROOT));
  const start = integrate.indexOf("\n## Guest tracking: track-order\n");
  assert.ok(start >= 0, "docs/integrate.md has its Guest tracking section");
  const end = integrate.indexOf("\n## ", start + 1);
  const section = integrate.slice(start, end < 0 ? undefined : end);
  assert.ok(section.includes("[`local/tracking_page.html`](../local/tracking_page.html)"));
  for (
    const [name, placeholder] of [["TRACK_ORDER_URL", PLACEHOLDER_TRACK_ORDER_URL], [
      "PUBLIC_KEY",
      PLACEHOLDER_PUBLIC_KEY,
    ]]
  ) {
    assert.ok(page.includes(`const ${name} = "${placeholder}";`), name);
    assert.ok(section.includes(`\`${name}\``), name);
  }
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

/** A track-order answer for a shipped gateway (UPI) order (openapi.json's example), with `shipment` as given. */
function shippedAnswer(shipment: unknown) {
  return { ...SHIPPED_ORDER_ANSWER, shipment };
}

const PAGE_URL = `http://127.0.0.1:5555/track?order=${SHIPPED_ORDER_ANSWER.orderId}&token=t`;

/** The page's main element for `answer`, fetched by a stand-in of track-order. */
async function pageFor(answer: unknown, status = 200) {
  const html = await trackingPage("http://127.0.0.1:5555").text();
  return await runPageScript(html, PAGE_URL, () => Promise.resolve(Response.json(answer, { status })));
}

Deno.test("the order page shows the items, the subtotal, the fee named after the method and the total, in Indian style", async () => {
  const main = await pageFor(shippedAnswer(null));
  assert.deepEqual(renderedLines(main.byId("items")), [
    "<div> Assam Tea 250 g",
    "<div> 2 × ₹349.00",
    "<td> ₹698.00",
    "<div> Steel Tumbler",
    "<div> Large 400 ml",
    "<div> 1 × ₹299.00",
    "<td> ₹299.00",
    "<td> Subtotal",
    "<td> ₹997.00",
    "<td> UPI payment fee",
    "<td> ₹19.94",
    "<td> Total",
    "<td> ₹1,016.94",
  ]);
});

Deno.test("the order page names the fee after the payment method the order was priced with", async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["card", { gatewayMethod: "card", checkoutFee: 24.93 }, "Card payment fee ₹24.93"],
    ["UPI", { gatewayMethod: "upi" }, "UPI payment fee ₹19.94"],
    ["wallet", { gatewayMethod: "wallet" }, "Wallet payment fee ₹19.94"],
    ["a UPI transfer to the shop", {
      paymentMethod: "upi_direct",
      gatewayMethod: null,
      checkoutFee: 0,
    }, "UPI transfer fee ₹0.00"],
  ];
  for (const [label, fields, line] of cases) {
    await t.step(label, async () => {
      const main = await pageFor({ ...shippedAnswer(null), ...fields });
      assert.equal(renderedLines(main.byId("fee-line")).map((l) => l.slice(5)).join(" "), line);
    });
  }
});

Deno.test("the order page writes amounts with Indian digit grouping: ₹1,01,694.00", async () => {
  const main = await pageFor({
    ...shippedAnswer(null),
    totalAmount: 99_210,
    checkoutFee: 2_480.25,
    finalAmount: 1_01_690.25,
  });
  assert.deepEqual(renderedLines(main.byId("total")), ["<td> Total", "<td> ₹1,01,690.25"]);
});

Deno.test("the order page shows dates and times in the store's time zone, as its e-mails do", async (t) => {
  const cases: [string, string, string[]][] = [
    ["India (the default)", "Asia/Kolkata", [
      "<p> Placed 25 Nov 2026, 9:53 pm",
      "<span> Order placed",
      "<time> 25 Nov 2026, 9:53 pm",
      "<span> Payment received",
      "<time> 25 Nov 2026, 9:54 pm",
      "<span> Being prepared",
      "<time> 26 Nov 2026, 9:30 am",
      "<span> Shipped",
      "<time> 27 Nov 2026, 12:15 am", // 18:45 UTC on the 26th is past midnight in India
      "<p> Times are India Standard Time.",
    ]],
    ["a store in Berlin", "Europe/Berlin", [
      "<p> Placed 25 Nov 2026, 5:23 pm",
      "<span> Order placed",
      "<time> 25 Nov 2026, 5:23 pm",
      "<span> Payment received",
      "<time> 25 Nov 2026, 5:24 pm",
      "<span> Being prepared",
      "<time> 26 Nov 2026, 5:00 am",
      "<span> Shipped",
      "<time> 26 Nov 2026, 7:45 pm",
      "<p> Times are Central European Standard Time.",
    ]],
    ["a zone the browser does not know: UTC, named", "Mars/Olympus_Mons", [
      "<p> Placed 25 Nov 2026, 4:23 pm",
      "<span> Order placed",
      "<time> 25 Nov 2026, 4:23 pm",
      "<span> Payment received",
      "<time> 25 Nov 2026, 4:24 pm",
      "<span> Being prepared",
      "<time> 26 Nov 2026, 4:00 am",
      "<span> Shipped",
      "<time> 26 Nov 2026, 6:45 pm",
      "<p> Times are Coordinated Universal Time.",
    ]],
  ];
  for (const [label, timeZone, lines] of cases) {
    await t.step(label, async () => {
      const main = await pageFor({ ...shippedAnswer(null), timeZone });
      assert.deepEqual(
        renderedLines(main).filter((line) => /^<p> (Placed|Times)|^<span>|^<time>/.test(line)),
        lines,
      );
      const timeline = [...main.byId("timeline").descendants()].filter((e) => e.tagName === "time");
      assert.deepEqual(timeline.map((e) => e.dateTime), shippedAnswer(null).history.map((h) => h.at));
    });
  }
});

Deno.test("the order page offers a 'Pay ₹… now' button while a gateway order awaits its payment, and none otherwise", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["a gateway order awaiting payment", { status: "payment_pending", paymentMethod: "gateway" }, [
      "<p> Awaiting payment",
      "<p> This order awaits your payment of ₹1,016.94.",
      "<button> Pay ₹1,016.94 now",
    ]],
    ["a paid gateway order", { status: "paid", paymentMethod: "gateway" }, ["<p> Paid"]],
    ["a cancelled gateway order", { status: "cancelled", paymentMethod: "gateway" }, ["<p> Cancelled"]],
    ["a upi_direct order awaiting payment", {
      status: "payment_pending",
      paymentMethod: "upi_direct",
      gatewayMethod: null,
    }, ["<p> Awaiting the shop's check of your payment"]],
  ];
  for (const [label, fields, lines] of cases) {
    await t.step(label, async () => {
      const main = await pageFor({ ...shippedAnswer(null), ...fields });
      assert.deepEqual(
        renderedLines(main).slice(3).filter((line) =>
          !/^<(h2|div|td|span|time)>|^<p> (Times|Questions)/.test(line)
        ),
        lines,
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

Deno.test("the order page shows the parcel as text, and links it only to an http(s) address", async (t) => {
  const cases: [string, unknown, string[]][] = [
    ["carrier, number and link", {
      carrier: "Delhivery",
      trackingNumber: "DL445712903381",
      trackingUrl: "https://www.delhivery.com/track/package/DL445712903381",
    }, [
      "<h2> Parcel",
      "<p> Delhivery, tracking number DL445712903381",
      '<a href="https://www.delhivery.com/track/package/DL445712903381" rel="noopener noreferrer"> Track the parcel',
    ]],
    ["a javascript: link and markup in the carrier", {
      carrier: "<img src=x onerror=alert(1)>",
      trackingNumber: null,
      trackingUrl: "javascript:alert(1)",
    }, ["<h2> Parcel", "<p> <img src=x onerror=alert(1)>"]],
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
      "<h2> Parcel",
      "<p> tracking number DL1",
      '<a href="https://track.example/DL1" rel="noopener noreferrer"> Track the parcel',
    ]],
    ["not shipped yet", null, []],
  ];
  for (const [label, shipment, parcel] of cases) {
    await t.step(label, async () => {
      const main = await pageFor(shippedAnswer(shipment));
      assert.deepEqual(renderedLines(main).slice(0, 2), ["<p> Chai & Co.", "<h1> Order ORD-2026-000042"]);
      const section = [...main.descendants()].find((element) => element.id === "parcel");
      assert.deepEqual(section ? renderedLines(section) : [], parcel);
    });
  }
});

Deno.test("the order page tells an unknown order from an outage", async (t) => {
  await t.step("404 ORDER_NOT_FOUND", async () => {
    const main = await pageFor({ success: false, error: { code: "ORDER_NOT_FOUND", message: "x" } }, 404);
    assert.equal(main.textContent, "We could not find this order. Please use the link from your e-mail.");
  });
  await t.step("500 INTERNAL_ERROR", async () => {
    const main = await pageFor({ success: false, error: { code: "INTERNAL_ERROR", message: "x" } }, 500);
    assert.equal(
      main.textContent,
      "Your order could not be loaded just now. Please reload this page in a moment.",
    );
  });
  await t.step("no answer at all", async () => {
    const html = await trackingPage("http://127.0.0.1:5555").text();
    const main = await runPageScript(html, PAGE_URL, () => Promise.reject(new TypeError("offline")));
    assert.equal(
      main.textContent,
      "Your order could not be loaded just now. Please reload this page in a moment.",
    );
  });
});

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] the order page the buyer's shipped e-mail links to shows the carrier, tracking number and link`,
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
        const main = await runPageScript(await page.text(), link, fetch);
        assert.deepEqual(renderedLines(main).slice(0, 2), [
          "<p> Test Store",
          `<h1> Order ${response.orderNumber}`,
        ]);
        assert.equal(main.byId("status").textContent, "Shipped");
        assert.deepEqual(renderedLines(main.byId("parcel")), [
          "<h2> Parcel",
          "<p> Delhivery, tracking number DL445712903381",
          '<a href="https://www.delhivery.com/track/package/DL445712903381" rel="noopener noreferrer"> Track the parcel',
        ]);
      } finally {
        await stack.close();
      }
    },
  });
}
