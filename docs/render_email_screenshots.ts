/**
 * Regenerates docs/email-buyer.png and docs/email-seller.png, the two order e-mails of a sample order,
 * docs/email-status-<status>.png, the buyer's e-mails when it is paid, shipped, delivered and cancelled,
 * docs/email-seller-paid.png (the seller's "payment received", the card used on a UPI order) and
 * docs/email-refund.png (the buyer's refund): rendered by the real templates and photographed in headless Chromium (Debian's `chromium` package).
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env docs/render_email_screenshots.ts
 */
import { renderOrderEmail } from "../supabase/functions/_shared/email/email_templates.ts";
import { renderStatusEmail } from "../supabase/functions/_shared/email/status_email_templates.ts";
import { renderRefundEmail } from "../supabase/functions/_shared/email/refund_email.ts";
import { renderSellerPaidEmail } from "../supabase/functions/_shared/email/seller_paid_email.ts";
import { CHROMIUM, CHROMIUM_FLAGS } from "../tests/support/chromium.ts";
import { orderEmailData, outboxEmail } from "../tests/support/order_emails.ts";
import { refundEmailRow, sellerPaidEmailRow } from "../tests/support/payment_emails.ts";
import { statusEmailData, statusOutboxEmail } from "../tests/support/status_emails.ts";

const options = {
  from: "Chai & Co. <orders@example.com>",
  trackingUrlTemplate: "https://shop.example.com/orders/{orderNumber}",
};

const data = orderEmailData();
const pages: [string, string][] = [
  ...(["buyer", "seller"] as const).map((kind): [string, string] => [
    kind,
    renderOrderEmail(outboxEmail(kind, data), options).html,
  ]),
  ...[
    statusEmailData("paid"),
    statusEmailData("shipped", {
      carrier: "Delhivery",
      trackingNumber: "DL 4457 1290 3381",
      trackingUrl: "https://www.delhivery.com/track/package/445712903381",
    }),
    statusEmailData("delivered"),
    statusEmailData("cancelled", { note: "The Large 400 ml tumbler is out of stock until January." }),
  ].map((status): [string, string] => [
    `status-${status.status}`,
    renderStatusEmail(statusOutboxEmail(status), options).html,
  ]),
  [
    "seller-paid",
    renderSellerPaidEmail(
      sellerPaidEmailRow({
        payment: {
          method: "card",
          amountMinor: 101_694,
          feeShortfallMinor: 499,
          paidAt: "2026-11-22T09:41:00.000Z",
        },
      }),
      options,
    ).html,
  ],
  ["refund", renderRefundEmail(refundEmailRow(), options).html],
];
const work = await Deno.makeTempDir();
try {
  for (const [kind, page] of pages) {
    const html = `${work}/${kind}.html`;
    await Deno.writeTextFile(html, page);
    const out = new URL(`email-${kind}.png`, import.meta.url).pathname;
    const { success, stderr } = await new Deno.Command(CHROMIUM, {
      args: [
        ...CHROMIUM_FLAGS,
        "--hide-scrollbars",
        `--user-data-dir=${work}/profile-${kind}`,
        "--window-size=700,1100",
        `--screenshot=${out}`,
        `file://${html}`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) throw new Error(`chromium failed for ${kind}: ${new TextDecoder().decode(stderr)}`);
    console.log(`wrote ${out}`);
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
