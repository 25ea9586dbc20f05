/**
 * The payment e-mails' templates: the seller's "payment received" e-mail (amount, the method used, the fee
 * shortfall, items, Reply-To the buyer), the buyer's refund e-mail (amount, method, 5–7 working days), and
 * the "Pay ₹… now" link of a gateway order's confirmation. Pure: every value escaped, subjects one line of
 * our own values.
 */
import assert from "node:assert/strict";
import { renderOrderEmail } from "../supabase/functions/_shared/email/email_templates.ts";
import type {
  RefundEmailData,
  SellerPaidEmailData,
} from "../supabase/functions/_shared/email/payment_email_data.ts";
import { renderRefundEmail } from "../supabase/functions/_shared/email/refund_email.ts";
import { renderSellerPaidEmail } from "../supabase/functions/_shared/email/seller_paid_email.ts";
import { orderEmailData, outboxEmail } from "./support/order_emails.ts";
import { refundEmailRow, sellerPaidEmailRow } from "./support/payment_emails.ts";

const OPTIONS = {
  from: "Chai & Co. <orders@example.com>",
  trackingUrlTemplate: "https://shop.example/track?order={orderId}&token={token}",
  trackingToken: "tok_123",
};

Deno.test("renderSellerPaidEmail() says the payment arrived and the order is ready to ship, with amount, method, items and Reply-To the buyer", () => {
  const message = renderSellerPaidEmail(sellerPaidEmailRow(), OPTIONS);
  assert.equal(message.subject, "Payment received for ORD-2026-000042: ready to ship");
  assert.equal(message.to, "owner@example.com");
  assert.equal(message.replyTo, "asha@example.com");
  for (const part of [message.text, _unescaped(message.html)]) {
    assert.ok(part.includes("Received: ₹1,016.94, paid by UPI, confirmed by the gateway."), part);
    assert.ok(part.includes("Assam Tea 250 g"));
    assert.ok(part.includes("Large 400 ml"));
    assert.ok(part.includes("560001"));
    assert.ok(!part.includes("Fee shortfall"), "no shortfall when the method chosen was paid by");
  }
  assert.match(message.text, /^ITEMS TO SHIP$/m);
  assert.match(message.text, /^ {2}\| 12 MG Road$/m);
});

Deno.test("renderSellerPaidEmail() says ready to ship only while the order is not shipped when the e-mail goes", async (t) => {
  const cases: [string, Record<string, unknown>, string, string | null][] = [
    [
      "read before the current status was given",
      {},
      "Payment received for ORD-2026-000042: ready to ship",
      null,
    ],
    ["still paid", { currentStatus: "paid" }, "Payment received for ORD-2026-000042: ready to ship", null],
    [
      "processing",
      { currentStatus: "processing" },
      "Payment received for ORD-2026-000042: ready to ship",
      null,
    ],
    [
      "shipped since",
      { currentStatus: "shipped" },
      "Payment received for ORD-2026-000042",
      "Since then, the order has been marked as shipped.",
    ],
    [
      "delivered since",
      { currentStatus: "delivered" },
      "Payment received for ORD-2026-000042",
      "Since then, the order has been marked as delivered.",
    ],
  ];
  for (const [label, overrides, subject, since] of cases) {
    await t.step(label, () => {
      const message = renderSellerPaidEmail(sellerPaidEmailRow(overrides), OPTIONS);
      assert.equal(message.subject, subject);
      const first = message.text.split("\n").slice(0, since ? 3 : 2);
      assert.equal(first[0], since ? "Payment received." : "Payment received: ready to ship.");
      if (since) {
        assert.equal(first[2], since);
        assert.ok(_unescaped(message.html).includes(since));
        assert.ok(!/ready to ship|TO SHIP/i.test(message.text), message.text);
      } else assert.match(message.text, /^ITEMS TO SHIP$/m);
    });
  }
});

Deno.test("renderSellerPaidEmail() names the card used on a upi order and the fee shortfall in rupees", () => {
  const message = renderSellerPaidEmail(
    sellerPaidEmailRow({
      payment: {
        method: "card",
        amountMinor: 101_694,
        feeShortfallMinor: 499,
        paidAt: "2026-11-22T10:00:00Z",
      },
    }),
    OPTIONS,
  );
  for (const part of [message.text, _unescaped(message.html)]) {
    assert.ok(part.includes("Received: ₹1,016.94, paid by card, confirmed by the gateway."));
    assert.ok(part.includes("The buyer chose UPI at checkout and paid by card."));
    assert.ok(
      part.includes(
        "Fee shortfall: ₹4.99. The gateway's fee for card is more than the ₹19.94 checkout fee the buyer paid for UPI.",
      ),
      part,
    );
  }
});

Deno.test("renderSellerPaidEmail() escapes the buyer's text and keeps it out of the subject", () => {
  const row = sellerPaidEmailRow();
  row.payload.buyer.name = "<img src=x onerror=alert(1)>\nPayment refunded";
  row.payload.shippingAddress.line1 = "<script>steal()</script>";
  row.payload.items[0].productName = "Tea & <b>Biscuits</b>";
  row.payload.payment.method = "<svg/onload=1>";
  const message = renderSellerPaidEmail(row, OPTIONS);
  assert.ok(!/<img|<script|<b>|<svg/.test(message.html));
  assert.ok(message.html.includes("&lt;img src=x onerror=alert(1)&gt;"));
  assert.ok(message.html.includes("Tea &amp; &lt;b&gt;Biscuits&lt;/b&gt;"));
  assert.equal(message.subject, "Payment received for ORD-2026-000042: ready to ship");
  // the buyer's line break is gone, and their words stay behind the marker: no line of ours says it
  assert.match(message.text, /^ {2}\| Name: <img src=x onerror=alert\(1\)> Payment refunded$/m);
  assert.doesNotMatch(message.text, /^Payment refunded/m);
});

Deno.test("renderRefundEmail() tells the buyer the amount, where it goes back to, why, and that banks take 5-7 working days", async (t) => {
  const cases: [string | null, string][] = [
    ["card", "the card you paid with"],
    ["upi", "the UPI account you paid from"],
    ["wallet", "the wallet you paid from"],
    ["netbanking", "the bank account you paid from"],
    [null, "the account you paid from"],
  ];
  for (const [method, destination] of cases) {
    await t.step(String(method), () => {
      const message = renderRefundEmail(
        refundEmailRow({ refund: { ...refundEmailRow().payload.refund, method } }),
        OPTIONS,
      );
      assert.equal(message.subject, "Refund of ₹1,016.94 for your order ORD-2026-000042 at Chai & Co.");
      assert.equal(message.replyTo, "owner@example.com");
      for (const part of [message.text, _unescaped(message.html)]) {
        assert.ok(part.includes(`Chai & Co. has refunded ₹1,016.94 for order ORD-2026-000042`), part);
        assert.ok(part.includes(`to ${destination}.`));
        assert.ok(part.includes("Banks take 5–7 working days to credit a refund to your account."));
        assert.ok(part.includes("Your order was cancelled after you paid for it."));
        assert.ok(part.includes("Refund reference: rfnd_FP8DDKxqJif6ca"));
      }
      assert.ok(message.text.includes("View your order: https://shop.example/track?order="));
    });
  }
});

Deno.test("renderRefundEmail() escapes the store's name and never lets a newline reach the subject", () => {
  const row = refundEmailRow();
  row.payload.store.name = "Chai <i>&</i> Co.\r\nBcc: victim@example.com";
  const message = renderRefundEmail(row, OPTIONS);
  assert.ok(!/[\r\n]/.test(message.subject));
  assert.ok(!message.html.includes("<i>"));
  assert.ok(message.html.includes("Chai &lt;i&gt;&amp;&lt;/i&gt; Co."));
});

Deno.test("renderOrderEmail() offers a gateway order awaiting payment a 'Pay ₹… now' link to the order's page, and no other order one", async (t) => {
  const gateway = orderEmailData({
    paymentMethod: "gateway",
    gatewayMethod: "upi",
    paymentProofUrl: null,
    feeMinor: 1_994,
    finalMinor: 101_694,
  });
  await t.step("a gateway order awaiting payment: both parts", () => {
    const message = renderOrderEmail(outboxEmail("buyer", gateway), OPTIONS);
    const link = `https://shop.example/track?order=${gateway.orderId}&amp;token=tok_123`;
    assert.ok(message.html.includes(`<a href="${link}"`));
    assert.ok(message.html.includes(">Pay ₹1,016.94 now</a>"));
    assert.ok(
      message.text.includes(
        `Pay ₹1,016.94 now: https://shop.example/track?order=${gateway.orderId}&token=tok_123`,
      ),
    );
  });
  const none: [string, typeof gateway][] = [
    ["a paid gateway order", { ...gateway, status: "paid" }],
    ["a cancelled gateway order", { ...gateway, status: "cancelled" }],
    ["a upi_direct order", orderEmailData()],
  ];
  for (const [label, data] of none) {
    await t.step(label, () => {
      const message = renderOrderEmail(outboxEmail("buyer", data), OPTIONS);
      assert.ok(!message.html.includes(" now</a>") && !/Pay .* now/.test(message.text));
    });
  }
  await t.step("the seller's alert", () => {
    assert.ok(!/Pay .* now/.test(renderOrderEmail(outboxEmail("seller", gateway), OPTIONS).text));
  });
  await t.step("no order page to link (a {token} template without a token)", () => {
    const message = renderOrderEmail(outboxEmail("buyer", gateway), { ...OPTIONS, trackingToken: undefined });
    assert.ok(!/Pay .* now/.test(message.text));
  });
});

/** The HTML's text with the escapes of `&` and `'` undone, to find our sentences in it. */
function _unescaped(html: string): string {
  return html.replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

/** Keeps the builders' types honest: a payload built here is the templates' own data type. */
export const _builders: [SellerPaidEmailData, RefundEmailData] = [
  sellerPaidEmailRow().payload,
  refundEmailRow().payload,
];
