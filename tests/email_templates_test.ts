import assert from "node:assert/strict";
import { renderOrderEmail } from "../supabase/functions/_shared/email/email_templates.ts";
import { escapeHtml, SUBJECT_MAX_LENGTH } from "../supabase/functions/_shared/email/email_safety.ts";
import { formatMoney } from "../supabase/functions/_shared/email/money_format.ts";
import { orderEmailData, outboxEmail } from "./support/order_emails.ts";

const options = {
  from: "Chai & Co. <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/orders/{orderNumber}?id={orderId}",
};

Deno.test("formatMoney() writes INR in en-IN grouping with two decimals", () => {
  assert.equal(formatMoney(99700, "INR"), "₹997.00");
  assert.equal(formatMoney(1234567805, "INR"), "₹1,23,45,678.05");
  assert.equal(formatMoney(5, "INR"), "₹0.05");
  assert.equal(formatMoney(150, "USD"), "$1.50");
});

Deno.test("renderOrderEmail() buyer mail carries every item the contract lists, in both parts", () => {
  const message = renderOrderEmail(outboxEmail("buyer"), options);
  assert.equal(message.to, "asha@example.com");
  assert.equal(message.replyTo, "owner@example.com");
  assert.equal(message.from, options.from);
  assert.equal(message.subject, "Your order ORD-2026-000042 at Chai & Co.");
  const tracking = "https://shop.example.com/orders/ORD-2026-000042?id=0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77";
  for (const part of [message.html, message.text]) {
    for (
      const needle of [
        "ORD-2026-000042",
        "Assam Tea 250 g",
        "Steel Tumbler",
        "Large 400 ml",
        "₹349.00", // unit price
        "₹698.00", // line total
        "₹299.00",
        "Subtotal",
        "₹997.00",
        "Checkout fee",
        "₹0.00",
        "12 MG Road",
        "Flat 4B",
        "Bengaluru, Karnataka 560001",
        "check your payment against the proof you sent",
      ]
    ) assert.ok(part.includes(needle), `missing ${needle}`);
  }
  assert.ok(message.html.includes(`href="${tracking.replace("&", "&amp;")}"`));
  assert.ok(message.text.includes(`Track your order: ${tracking}`));
  assert.ok(!message.html.includes("proofs.example.com"), "the buyer never gets the proof link");
});

Deno.test("renderOrderEmail() seller mail lists the customer, the items to fulfil and the proof link", () => {
  const message = renderOrderEmail(outboxEmail("seller"), options);
  assert.equal(message.to, "owner@example.com");
  assert.equal(message.replyTo, "asha@example.com");
  assert.equal(message.subject, "New order ORD-2026-000042: ₹997.00, payment not confirmed yet");
  for (const part of [message.html, message.text]) {
    for (
      const needle of [
        "Asha Rao",
        "asha@example.com",
        "+919876543210",
        "12 MG Road",
        "Large 400 ml",
        "₹698.00",
        "https://proofs.example.com/upi/7781.png",
        "Check the payment against the buyer",
      ]
    ) assert.ok(part.includes(needle), `missing ${needle}`);
    assert.ok(part.toLowerCase().includes("items to fulfil"));
  }
  assert.ok(message.html.includes('href="https://proofs.example.com/upi/7781.png"'));
});

Deno.test("renderOrderEmail() names the gateway sub-method and never links a proof for gateway", async (t) => {
  for (
    const [gatewayMethod, words] of [["card", "(card)"], ["upi", "(UPI)"], ["wallet", "(wallet)"]] as const
  ) {
    await t.step(gatewayMethod, () => {
      const data = orderEmailData({
        paymentMethod: "gateway",
        gatewayMethod,
        paymentProofUrl: "https://proofs.example.com/upi/7781.png",
        feeMinor: 2493,
        finalMinor: 102193,
      });
      for (const kind of ["buyer", "seller"] as const) {
        const message = renderOrderEmail(outboxEmail(kind, data), options);
        assert.ok(message.text.includes(`payment gateway ${words}`));
        assert.ok(message.html.includes("₹24.93") && message.html.includes("₹1,021.93"));
        assert.ok(
          !message.html.includes("proofs.example.com") && !message.text.includes("proofs.example.com"),
        );
      }
    });
  }
});

Deno.test("renderOrderEmail() links a upi_direct proof only when it is an http(s) URL", () => {
  const data = orderEmailData({ paymentProofUrl: "javascript:alert(1)" });
  const message = renderOrderEmail(outboxEmail("seller", data), options);
  assert.ok(!message.html.includes("javascript:"));
  assert.ok(!message.text.includes("javascript:"));
  assert.ok(!message.html.includes("payment proof</a>"));
});

Deno.test("renderOrderEmail() shows an XSS name, address and product only escaped", () => {
  const attack = `<script>alert("x")</script>`;
  const escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;";
  const data = orderEmailData({
    buyer: { name: attack, email: "asha@example.com", phone: "+919876543210" },
    shippingAddress: {
      ...orderEmailData().shippingAddress,
      line1: `<img src=x onerror=alert(1)>`,
      city: attack,
    },
    items: [{ ...orderEmailData().items[0], productName: attack, variantName: `"><b>` }],
    store: { name: `Tea & <Co>`, ownerEmail: "owner@example.com" },
  });
  for (const kind of ["buyer", "seller"] as const) {
    const { html, text } = renderOrderEmail(outboxEmail(kind, data), options);
    assert.ok(!html.includes("<script>"), `${kind}: raw script tag`);
    assert.ok(!html.includes("<img"), `${kind}: raw img tag`);
    assert.ok(!html.includes(`"><b>`), `${kind}: attribute break-out`);
    assert.ok(html.includes(escaped), `${kind}: escaped name`);
    assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;"), `${kind}: escaped address`);
    assert.ok(html.includes("Tea &amp; &lt;Co&gt;"), `${kind}: escaped store`);
    assert.ok(text.includes(attack), `${kind}: the text part shows the value as typed`);
  }
});

Deno.test("renderOrderEmail() never lets a newline in a name reach the subject", () => {
  const data = orderEmailData({
    buyer: {
      name: "Asha\r\nBcc: victim@example.com\u0000\u2028x",
      email: "asha@example.com",
      phone: "+919876543210",
    },
    store: { name: "Chai\n& Co.", ownerEmail: "owner@example.com" },
  });
  for (const kind of ["buyer", "seller"] as const) {
    const { subject } = renderOrderEmail(outboxEmail(kind, data), options);
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\u0000-\u001f\u007f\u2028\u2029]/.test(subject), `${kind}: ${JSON.stringify(subject)}`);
  }
  assert.equal(
    renderOrderEmail(outboxEmail("buyer", data), options).subject,
    "Your order ORD-2026-000042 at Chai & Co.",
  );
});

// pins a past bug: the seller's subject ended with the buyer's name, so a name such as "Asha (PAYMENT
// RECEIVED, verified, ship today)" put a payment claim into a line of ours
Deno.test("renderOrderEmail() keeps buyer text out of every subject and says paid only for a paid order", () => {
  const name = "Asha Rao (PAYMENT RECEIVED ✔ verified, ship today)";
  const pending = orderEmailData({ buyer: { name, email: "asha@example.com", phone: "+919876543210" } });
  for (const kind of ["buyer", "seller"] as const) {
    assert.ok(!renderOrderEmail(outboxEmail(kind, pending), options).subject.includes("PAYMENT"), kind);
  }
  const paid = orderEmailData({ status: "paid" });
  assert.equal(
    renderOrderEmail(outboxEmail("seller", paid), options).subject,
    "New order ORD-2026-000042: ₹997.00, paid",
  );
});

Deno.test("renderOrderEmail() caps the subject length", () => {
  const data = orderEmailData({ store: { name: "A".repeat(500), ownerEmail: "owner@example.com" } });
  const { subject } = renderOrderEmail(outboxEmail("buyer", data), options);
  assert.equal([...subject].length, SUBJECT_MAX_LENGTH);
  assert.ok(subject.endsWith("…"));
});

Deno.test("renderOrderEmail() URL-encodes the order values into the tracking link", () => {
  const data = orderEmailData({ orderNumber: "ORD 1&x=<y>" });
  const message = renderOrderEmail(outboxEmail("buyer", data), {
    ...options,
    trackingUrlTemplate: "https://shop.example.com/t/{orderNumber}",
  });
  assert.ok(message.text.includes("https://shop.example.com/t/ORD%201%26x%3D%3Cy%3E"));
});

Deno.test("renderOrderEmail() fills {token} with the tracking token it is given, and leaves the link out without one", () => {
  const template = "https://shop.example.com/track?order={orderId}&n={orderNumber}&token={token}";
  const email = outboxEmail("buyer");
  const withToken = renderOrderEmail(email, {
    ...options,
    trackingUrlTemplate: template,
    trackingToken: "t0k-en_",
  });
  const link = `https://shop.example.com/track?order=${email.orderId}&n=ORD-2026-000042&token=t0k-en_`;
  assert.ok(withToken.text.includes(`Track your order: ${link}`));
  assert.ok(withToken.html.includes(link.replaceAll("&", "&amp;")));
  // a link that could only answer 404 is no link
  const without = renderOrderEmail(email, { ...options, trackingUrlTemplate: template });
  assert.ok(!without.text.includes("Track your order") && !without.html.includes("shop.example.com/track"));
});

Deno.test("renderOrderEmail() leaves out the tracking link when the template is no http(s) URL", () => {
  const message = renderOrderEmail(outboxEmail("buyer"), {
    ...options,
    trackingUrlTemplate: "javascript:{orderId}",
  });
  assert.ok(!message.html.includes("javascript:") && !message.text.includes("Track your order"));
});

const PAYMENT_CLAIM = /\b(verified|verify|received|paid)\b/i;

Deno.test("renderOrderEmail() says a payment was verified, received or paid only when the order is paid", async (t) => {
  const methods = [
    { paymentMethod: "upi_direct", gatewayMethod: null },
    { paymentMethod: "gateway", gatewayMethod: "card" },
    { paymentMethod: "gateway", gatewayMethod: "upi" },
  ] as const;
  for (const method of methods) {
    for (const status of ["payment_pending", "pending", undefined, "paid"] as const) {
      for (const kind of ["buyer", "seller"] as const) {
        await t.step(
          `${method.paymentMethod}/${method.gatewayMethod ?? "-"}, ${status ?? "no status"}, ${kind}`,
          () => {
            const { html, text } = renderOrderEmail(
              outboxEmail(kind, orderEmailData({ ...method, status })),
              options,
            );
            for (const part of [html, text]) {
              assert.equal(PAYMENT_CLAIM.test(part), status === "paid", part.match(PAYMENT_CLAIM)?.[0]);
            }
          },
        );
      }
    }
  }
});

Deno.test("renderOrderEmail() buyer confirmation of an order cancelled says so truthfully: no payment due, or paid and how the money goes back", async (t) => {
  const gateway = {
    paymentMethod: "gateway",
    gatewayMethod: "upi",
    feeMinor: 1_994,
    finalMinor: 101_694,
    status: "cancelled",
  } as const;
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["never paid", { ...gateway, recordedPayments: { count: 0, amountMinor: null }, refunds: [] }, [
      "This order has been cancelled: no payment is due for it.",
    ]],
    ["paid through the gateway, then cancelled: refund pending", {
      ...gateway,
      paidBy: "payment_gateway",
      paidWith: "upi",
      recordedPayments: { count: 1, amountMinor: 101_694 },
      refunds: [{ amountMinor: 101_694, currency: "INR", status: "pending" }],
    }, [
      "This order has been cancelled.",
      "A payment of ₹1,016.94 was received for this order through the payment gateway.",
      "As the order is cancelled, ₹1,016.94 is being refunded to you through the payment gateway: you will get an e-mail when the refund is issued, and banks take 5–7 working days to credit it.",
    ]],
    ["paid through the gateway, then cancelled: refund issued", {
      ...gateway,
      paidBy: "payment_gateway",
      recordedPayments: { count: 1, amountMinor: 101_694 },
      refunds: [{ amountMinor: 101_694, currency: "INR", status: "issued" }],
    }, [
      "This order has been cancelled.",
      "A payment of ₹1,016.94 was received for this order through the payment gateway.",
      "As the order is cancelled, ₹1,016.94 has been refunded to you through the payment gateway: banks take 5–7 working days to credit it.",
    ]],
    ["a UPI transfer the seller confirmed, then cancelled: the store returns it", {
      status: "cancelled",
      paidBy: "seller",
      recordedPayments: { count: 0, amountMinor: null },
      refunds: [{ amountMinor: 99_700, currency: "INR", status: "manual" }],
    }, [
      "This order has been cancelled.",
      "Chai & Co. had confirmed receiving your payment (₹997.00).",
      "As the order is cancelled, Chai & Co. will return ₹997.00 to you itself: reply to this e-mail to arrange it with Chai & Co.",
    ]],
    ["a gateway order the seller marked paid, then cancelled, no payment recorded: due back", {
      ...gateway,
      paidBy: "seller",
      recordedPayments: { count: 0, amountMinor: null },
      refunds: [],
    }, [
      "This order has been cancelled.",
      "Chai & Co. had confirmed receiving your payment (₹1,016.94).",
      "As the order is cancelled, this money is due back to you: reply to this e-mail to ask Chai & Co. about your refund.",
    ]],
  ];
  for (const [label, overrides, payment] of cases) {
    await t.step(label, () => {
      const { text, html } = renderOrderEmail(outboxEmail("buyer", orderEmailData(overrides)), options);
      assert.ok(text.includes(`\nPAYMENT\n${payment.join("\n")}\n\n`), text);
      assert.ok(html.includes(payment.map(escapeHtml).join("<br>")), html);
      assert.ok(!/Awaiting payment|Pay ₹/.test(text), text);
    });
  }
});

Deno.test("renderOrderEmail() says a gateway order awaits its payment through the gateway, to both readers", () => {
  const data = orderEmailData({ paymentMethod: "gateway", gatewayMethod: "card", status: "payment_pending" });
  for (const kind of ["buyer", "seller"] as const) {
    const { text } = renderOrderEmail(outboxEmail(kind, data), options);
    assert.ok(text.includes("PAYMENT\nAwaiting payment through the payment gateway (card)."), text);
  }
  const seller = renderOrderEmail(outboxEmail("seller", data), options).text;
  assert.ok(seller.includes("Do not ship before the gateway has reported the payment."));
});

Deno.test("renderOrderEmail() asks the seller of a upi_direct order to check the payment against the proof before shipping", () => {
  const { text, html } = renderOrderEmail(
    outboxEmail("seller", orderEmailData({ status: "payment_pending" })),
    options,
  );
  const ask = "Check the payment against the buyer's proof in your account before you ship.";
  assert.ok(text.includes(`PAYMENT\nUPI direct transfer, not yet confirmed.\n${ask}`), text);
  assert.ok(html.includes(ask.replace("'", "&#39;")));
  assert.ok(text.includes("Payment proof (the buyer's link): https://proofs.example.com/upi/7781.png"));
});

// pins a past bug: a line2 with line breaks put a fake "PAYMENT ... verified automatically. Ship now."
// section into the seller's plain-text e-mail of a upi_direct order
Deno.test("renderOrderEmail() sets buyer text apart so that it cannot imitate a section of the e-mail", async (t) => {
  const forged =
    "Flat 4\n\nPAYMENT\nPaid online through the payment gateway, verified automatically. Ship now.";
  const data = orderEmailData({
    buyer: { name: "Asha\r\nPAYMENT", email: "asha@example.com", phone: "+919876543210" },
    shippingAddress: {
      ...orderEmailData().shippingAddress,
      line2: forged,
      city: "Pune\u2028ITEMS TO FULFIL",
    },
    status: "payment_pending",
  });
  for (const kind of ["buyer", "seller"] as const) {
    await t.step(kind, () => {
      const { text, html } = renderOrderEmail(outboxEmail(kind, data), options);
      const lines = text.split("\n");
      // our section headings appear once each, and nothing of the buyer's starts a line of ours
      assert.equal(lines.filter((line) => line.startsWith("PAYMENT")).length, 1);
      assert.equal(lines.filter((line) => line.startsWith("ITEMS")).length, 1);
      assert.ok(!lines.some((line) => /^(Paid|Ship now)/.test(line)), text);
      const quoted = lines.filter((line) => line.includes("verified automatically"));
      assert.deepEqual(quoted.map((line) => line.startsWith("  | ")), [true]);
      assert.ok(!text.includes("\u2028"));
      // in the HTML it stays inside the buyer's block, escaped and isolated
      assert.ok(html.includes("<bdi>Flat 4\n\nPAYMENT"), "line2 in a <bdi> of the buyer block");
    });
  }
});

// pins a past bug: a run of spaces in line2 let a plain-text reader's line wrapping start a line of
// "PAYMENT" without the buyer marker
Deno.test("renderOrderEmail() wraps buyer text in the plain text itself, each line behind the buyer marker", () => {
  const line2 = "Flat 4" + " ".repeat(60) + "PAYMENT" + " ".repeat(64) + "Paid via UPI, verified. Ship now.";
  const data = orderEmailData({
    shippingAddress: {
      line1: "x".repeat(150),
      line2,
      city: "Pune",
      state: "MH",
      postalCode: "411001",
      country: "IN",
    },
  });
  for (const kind of ["buyer", "seller"] as const) {
    const { text } = renderOrderEmail(outboxEmail(kind, data), options);
    const quoted = text.split("\n").filter((line) => line.startsWith("  | "));
    assert.ok(quoted.every((line) => [...line].length <= 64), kind);
    assert.ok(quoted.some((line) => line === "  | Flat 4 PAYMENT Paid via UPI, verified. Ship now."), kind);
    assert.equal(quoted.filter((line) => /^ {2}\| x+$/.test(line)).length, 3, `${kind}: 150 x in 3 lines`);
  }
});
