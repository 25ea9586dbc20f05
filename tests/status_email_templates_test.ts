import assert from "node:assert/strict";
import { escapeHtml } from "../supabase/functions/_shared/email/email_safety.ts";
import { orderEmailIdempotencyKey } from "../supabase/functions/_shared/email/mailer.ts";
import type { EmailedStatus } from "../supabase/functions/_shared/email/order_email.ts";
import {
  renderOutboxEmail,
  showsTrackingLink,
} from "../supabase/functions/_shared/email/render_outbox_email.ts";
import { renderStatusEmail } from "../supabase/functions/_shared/email/status_email_templates.ts";
import { outboxEmail } from "./support/order_emails.ts";
import { statusEmailData, statusOutboxEmail } from "./support/status_emails.ts";

const options = {
  from: "Chai & Co. <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/orders/{orderNumber}?id={orderId}",
};
const TRACKING = "https://shop.example.com/orders/ORD-2026-000042?id=0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77";
const STATUSES: EmailedStatus[] = ["paid", "shipped", "delivered", "cancelled"];

const render = (status: EmailedStatus, overrides = {}) =>
  renderStatusEmail(statusOutboxEmail(statusEmailData(status, overrides)), options);

Deno.test("renderStatusEmail() writes each status's subject, to the buyer, replies to the store", () => {
  const subjects = Object.fromEntries(STATUSES.map((status) => [status, render(status).subject]));
  assert.deepEqual(subjects, {
    paid: "Payment received for your order ORD-2026-000042 at Chai & Co.",
    shipped: "Your order ORD-2026-000042 at Chai & Co. has shipped",
    delivered: "Your order ORD-2026-000042 at Chai & Co. was delivered",
    cancelled: "Your order ORD-2026-000042 at Chai & Co. was cancelled",
  });
  for (const status of STATUSES) {
    const message = render(status);
    assert.equal(message.to, "asha@example.com");
    assert.equal(message.replyTo, "owner@example.com");
    assert.equal(message.from, options.from);
    assert.ok(message.text.includes(`Track your order: ${TRACKING}`), status);
    assert.ok(message.html.includes(`href="${TRACKING.replace("&", "&amp;")}"`), status);
  }
});

Deno.test("renderStatusEmail() paid: the amount received, how it was paid, the items, in both parts", () => {
  const { html, text } = render("paid");
  for (const part of [html, text]) {
    for (
      const needle of [
        "The payment gateway has confirmed your payment for order ORD-2026-000042",
        "₹1,016.94",
        "Paid online through the payment gateway (UPI), confirmed by the gateway.",
        "Assam Tea 250 g",
        "Large 400 ml",
        "₹698.00",
        "marks your order as shipped",
      ]
    ) assert.ok(part.includes(needle), `missing ${needle}`);
  }
});

Deno.test("renderStatusEmail() paid: says who confirmed the payment, the gateway or the seller who received it", async (t) => {
  const upi = { paymentMethod: "upi_direct", gatewayMethod: null, feeMinor: 0, finalMinor: 99_700 } as const;
  const cases: [string, Record<string, unknown>, string, string[]][] = [
    ["the gateway", {}, "The payment gateway has confirmed your payment for order ORD-2026-000042, placed", [
      "Paid online through the payment gateway (UPI), confirmed by the gateway.",
    ]],
    [
      "the seller, for a gateway order",
      { paidBy: "seller" },
      "Chai & Co. has confirmed receiving your payment",
      [
        "Payment confirmed by the seller.",
        "Payment method chosen at checkout: payment gateway (UPI).",
      ],
    ],
    [
      "the seller, for a upi_direct order",
      { ...upi, paidBy: "seller" },
      "Chai & Co. has confirmed receiving",
      [
        "Paid by UPI direct transfer, confirmed by the seller.",
      ],
    ],
    [
      "nobody recorded (plain SQL, or a row from before)",
      { paidBy: undefined },
      "Chai & Co. has marked order",
      [
        "Marked as paid.",
        "Payment method chosen at checkout: payment gateway (UPI).",
      ],
    ],
  ];
  for (const [label, overrides, opening, payment] of cases) {
    await t.step(label, () => {
      const { text, html } = render("paid", overrides);
      assert.ok(text.includes(opening) && html.includes(opening.replace("&", "&amp;")), text);
      assert.ok(text.includes(`PAYMENT\n${payment.join("\n")}\n\n`), text);
      if (label !== "the gateway") assert.ok(!/confirmed by the gateway|gateway has confirmed/.test(text));
    });
  }
});

Deno.test("renderStatusEmail() paid: names the method the buyer actually paid by, never the one chosen at checkout", async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["card used on a UPI order", { paidWith: "card" }, "(card)"],
    ["netbanking", { paidWith: "netbanking" }, "(netbanking)"],
    ["UPI as chosen", { paidWith: "upi" }, "(UPI)"],
    ["a row from before the method was recorded: the one chosen", { paidWith: undefined }, "(UPI)"],
  ];
  for (const [label, overrides, method] of cases) {
    await t.step(label, () => {
      const { text, html } = render("paid", overrides);
      const line = `Paid online through the payment gateway ${method}, confirmed by the gateway.`;
      assert.ok(text.includes(line) && html.includes(line), text);
      if (method !== "(UPI)") assert.ok(!text.includes("UPI"), text);
    });
  }
});

Deno.test("renderStatusEmail() cancelled: says how the money goes back, through the gateway by itself or by the store", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["a gateway payment, refunded through the gateway", {
      refunds: [{ amountMinor: 101_694, currency: "INR", status: "pending" }],
    }, [
      "A payment of ₹1,016.94 was received for this order through the payment gateway.",
      "As the order is cancelled, ₹1,016.94 is being refunded to you through the payment gateway: you will get an e-mail when the refund is issued, and banks take 5–7 working days to credit it.",
    ]],
    ["a UPI transfer the seller confirmed: the store returns it", {
      paymentMethod: "upi_direct",
      gatewayMethod: null,
      feeMinor: 0,
      finalMinor: 99_700,
      paidBy: "seller",
      recordedPayments: { count: 0, amountMinor: null },
      refunds: [{ amountMinor: 99_700, currency: "INR", status: "manual" }],
    }, [
      "Chai & Co. had confirmed receiving your payment (₹997.00).",
      "As the order is cancelled, Chai & Co. will return ₹997.00 to you itself: reply to this e-mail to arrange it with Chai & Co.",
    ]],
    ["a gateway payment the gateway has refunded already (the e-mail went late)", {
      refunds: [{ amountMinor: 101_694, currency: "INR", status: "processed" }],
    }, [
      "A payment of ₹1,016.94 was received for this order through the payment gateway.",
      "As the order is cancelled, ₹1,016.94 has been refunded to you through the payment gateway: banks take 5–7 working days to credit it.",
    ]],
    ["refunds in two currencies", {
      recordedPayments: { count: 2, amountMinor: null },
      refunds: [
        { amountMinor: 100, currency: "INR", status: "pending" },
        { amountMinor: 101_694, currency: "USD", status: "issued" },
      ],
    }, [
      "2 payments were received for this order through the payment gateway.",
      "As the order is cancelled, this money is being refunded to you through the payment gateway: you will get an e-mail when the refund is issued, and banks take 5–7 working days to credit it.",
    ]],
  ];
  for (const [label, overrides, payment] of cases) {
    await t.step(label, () => {
      const text = render("cancelled", { note: "Out of stock", ...overrides }).text;
      assert.ok(text.includes(`PAYMENT\n${payment.join("\n")}\n\n`), text);
    });
  }
});

Deno.test("renderStatusEmail() says what comes next from the order's status when the e-mail goes, not at its move", async (t) => {
  const next = ["NEXT", "You will get another e-mail when Chai & Co. marks your order as shipped."];
  const cases: [string, Record<string, unknown>, string[] | null][] = [
    ["paid, still paid", { currentStatus: "paid" }, next],
    ["paid, read before the current status was given", {}, next],
    ["paid, processing since", { currentStatus: "processing" }, next],
    ["paid, shipped since", { currentStatus: "shipped" }, [
      "SINCE THEN",
      "Chai & Co. has marked your order as shipped: a separate e-mail has the shipment's details.",
    ]],
    ["paid, delivered since", { currentStatus: "delivered" }, [
      "SINCE THEN",
      "Chai & Co. has marked your order as delivered.",
    ]],
    ["shipped, still shipped", { status: "shipped", currentStatus: "shipped" }, null],
    ["shipped, delivered since", { status: "shipped", currentStatus: "delivered" }, [
      "SINCE THEN",
      "Chai & Co. has marked your order as delivered.",
    ]],
  ];
  for (const [label, { status, ...overrides }, section] of cases) {
    await t.step(label, () => {
      const { text, html } = render((status ?? "paid") as EmailedStatus, overrides);
      if (section === null) {
        assert.ok(!/^(NEXT|SINCE THEN)$/m.test(text), text);
        return;
      }
      assert.ok(text.includes(`\n\n${section.join("\n")}\n`), text);
      assert.equal(/^NEXT$/m.test(text), section[0] === "NEXT", text);
      assert.ok(html.includes(escapeHtml(section[1])), html);
    });
  }
});

Deno.test("renderStatusEmail() shipped: carrier and tracking number set apart, the carrier's link only when http(s)", () => {
  const { html, text } = render("shipped", {
    carrier: "Delhivery",
    trackingNumber: "DL1234",
    trackingUrl: "https://track.example/DL1234",
  });
  assert.ok(
    text.includes(
      "SHIPMENT (as the store entered it)\n  | Carrier: Delhivery\n  | Tracking number: DL1234\nTrack the parcel: https://track.example/DL1234",
    ),
    text,
  );
  assert.ok(html.includes("<bdi>Delhivery</bdi>") && html.includes("<bdi>DL1234</bdi>"));
  assert.ok(html.includes('href="https://track.example/DL1234"'));

  const hostileLink = render("shipped", { trackingUrl: "javascript:alert(1)" });
  assert.ok(!hostileLink.html.includes("javascript:") && !hostileLink.text.includes("javascript:"));
  const none = render("shipped").text;
  assert.ok(none.includes("SHIPMENT\nThe store has not given tracking details."), none);
});

Deno.test("renderStatusEmail() cancelled: the store's reason set apart, and a refund only when a payment was recorded", async (t) => {
  const REFUND =
    "As the order is cancelled, this money is due back to you: reply to this e-mail to ask Chai & Co. about your refund.";
  const NO_PAYMENT = [
    "No payment had been recorded for this order.",
    "If you did pay, reply to this e-mail to tell Chai & Co.",
  ];
  const none = { count: 0, amountMinor: null };
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["paid through the gateway", {}, [
      "A payment of ₹1,016.94 was received for this order through the payment gateway.",
      REFUND,
    ]],
    ["two gateway payments", { recordedPayments: { count: 2, amountMinor: 203_388 } }, [
      "2 payments totalling ₹2,033.88 were received for this order through the payment gateway.",
      REFUND,
    ]],
    ["a payment in another currency", { recordedPayments: { count: 1, amountMinor: null } }, [
      "A payment was received for this order through the payment gateway.",
      REFUND,
    ]],
    ["confirmed by the seller, nothing through the gateway", { paidBy: "seller", recordedPayments: none }, [
      "Chai & Co. had confirmed receiving your payment (₹1,016.94).",
      REFUND,
    ]],
    ["a upi_direct transfer confirmed by the seller and a gateway payment", {
      paymentMethod: "upi_direct",
      gatewayMethod: null,
      paidBy: "seller",
    }, [
      "A payment of ₹1,016.94 was received for this order through the payment gateway.",
      "Chai & Co. had confirmed receiving your payment (₹1,016.94).",
      REFUND,
    ]],
    ["a gateway payment of an order never paid", {
      previousStatus: "payment_pending",
      paidBy: null,
      recordedPayments: { count: 1, amountMinor: 50_000 },
    }, ["A payment of ₹500.00 was received for this order through the payment gateway.", REFUND]],
    ["nothing paid", { previousStatus: "payment_pending", paidBy: null, recordedPayments: none }, NO_PAYMENT],
    ["a row from before, the order was paid", {
      previousStatus: "processing",
      paidBy: undefined,
      recordedPayments: undefined,
    }, ["This order had been marked as paid (₹1,016.94).", REFUND]],
    ["a row from before, the order was not paid", {
      previousStatus: "payment_pending",
      paidBy: undefined,
      recordedPayments: undefined,
    }, NO_PAYMENT],
  ];
  for (const [label, overrides, payment] of cases) {
    await t.step(label, () => {
      const text = render("cancelled", { note: "Out of stock", ...overrides }).text;
      assert.ok(text.includes("REASON GIVEN BY THE STORE:\n  | Out of stock"), text);
      assert.ok(text.includes(`PAYMENT\n${payment.join("\n")}\n\n`), text);
      if (payment === NO_PAYMENT) assert.ok(!/\brefund\b/i.test(text), text);
    });
  }
});

Deno.test("renderStatusEmail() cancelled by the system: its reason is ours, not set apart as the store's", () => {
  const { text, html } = render("cancelled", {
    previousStatus: "payment_pending",
    movedBy: "system",
    paidBy: null,
    recordedPayments: { count: 0, amountMinor: null },
    note: "No payment arrived through the payment gateway within 30 minutes of the order.",
  });
  assert.ok(
    text.includes("REASON\nNo payment arrived through the payment gateway within 30 minutes of the order.\n"),
    text,
  );
  assert.ok(!/given by the store/i.test(text) && !/given by the store/i.test(html), text);
  assert.ok(text.includes("PAYMENT\nNo payment had been recorded for this order."), text);
});

const PAYMENT_CLAIM = /\b(verified|received|paid)\b/i;

Deno.test("renderStatusEmail() says a payment was received or paid only in the paid e-mail and for a cancelled order whose payment was recorded", () => {
  assert.ok(PAYMENT_CLAIM.test(render("paid").text));
  for (const status of ["shipped", "delivered"] as const) {
    const { html, text } = render(status, { note: "Left with the neighbour" });
    assert.ok(!PAYMENT_CLAIM.test(html) && !PAYMENT_CLAIM.test(text), status);
  }
  for (const previousStatus of ["payment_pending", "pending"]) {
    const { text } = render("cancelled", {
      note: "x",
      previousStatus,
      paidBy: null,
      recordedPayments: { count: 0, amountMinor: null },
    });
    assert.equal(text.match(PAYMENT_CLAIM), null, previousStatus);
  }
});

Deno.test("renderStatusEmail() escapes the store's text and keeps it from imitating a section of ours", () => {
  const forged = "<script>alert(1)</script>\n\nPAYMENT\nRefund sent";
  for (const status of STATUSES) {
    const { html, text, subject } = render(status, {
      store: { name: "Tea <b>& Co</b>", ownerEmail: "owner@example.com" },
      note: forged,
      ...(status === "shipped" ? { carrier: forged, trackingNumber: '"><img src=x>' } : {}),
    });
    assert.ok(!html.includes("<script>") && !html.includes("<img") && !html.includes("<b>&"), status);
    assert.ok(html.includes("Tea &lt;b&gt;&amp; Co&lt;/b&gt;"), status);
    const lines = text.split("\n");
    assert.ok(!lines.some((line) => /^(Refund sent|<script>)/.test(line)), `${status}: ${text}`);
    assert.ok(lines.filter((line) => line.includes("Refund sent")).every((line) => line.startsWith("  | ")));
    assert.ok(!/[\r\n]/.test(subject));
  }
});

// pins a past bug: a sentence ending with the store's name "Chai & Co." ended in two full stops
Deno.test("renderStatusEmail() ends no sentence with two full stops when the store's name ends with one", () => {
  for (const status of STATUSES) {
    for (const paidBy of ["payment_gateway", "seller", null]) {
      for (const count of [0, 1]) {
        const { html, text } = render(status, {
          paidBy,
          recordedPayments: { count, amountMinor: count * 100 },
          note: "n",
        });
        assert.ok(!text.includes("..") && !html.includes(".."), `${status} paid by ${paidBy}, ${count}`);
      }
    }
  }
});

Deno.test("renderOutboxEmail() renders each outbox kind with its template, and the key names order and status", () => {
  const status = statusOutboxEmail(statusEmailData("delivered"));
  assert.equal(renderOutboxEmail(status, options).subject, render("delivered").subject);
  assert.equal(
    orderEmailIdempotencyKey(status),
    "order/0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77/status/delivered",
  );
  const buyer = outboxEmail("buyer");
  assert.equal(renderOutboxEmail(buyer, options).subject, "Your order ORD-2026-000042 at Chai & Co.");
  assert.equal(orderEmailIdempotencyKey(buyer), "order/0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77/buyer");
});

Deno.test("showsTrackingLink() is true for exactly the kinds whose template renders the tracking link", () => {
  const withToken = {
    ...options,
    trackingUrlTemplate: "https://shop.example.com/track?order={orderId}&t={token}",
  };
  const kinds = [
    outboxEmail("buyer"),
    outboxEmail("seller"),
    ...STATUSES.map((s) => statusOutboxEmail(statusEmailData(s))),
  ];
  const rendered = kinds.map((email) => [
    email.kind,
    renderOutboxEmail(email, { ...withToken, trackingToken: "tok" }).text.includes("&t=tok"),
  ]);
  assert.deepEqual(rendered, kinds.map((email) => [email.kind, showsTrackingLink(email)]));
  assert.deepEqual(rendered.filter(([, shown]) => !shown).map(([kind]) => kind), ["seller"]);
});
