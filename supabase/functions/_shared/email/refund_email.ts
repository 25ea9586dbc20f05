/**
 * The buyer's e-mail when a refund has been issued through the gateway: the amount, where it goes back to
 * (the method the buyer paid by), why, and that banks take 5–7 working days to credit it. Pure, with the
 * order e-mails' rules: every value escaped, a single-line subject, HTML and plain text, the order's page
 * linked when there is one.
 */
import { button, h1, h2, muted, page, paragraph } from "./email_html.ts";
import { escapeHtml as esc, fillTrackingUrl, singleLineSubject } from "./email_safety.ts";
import type { EmailMessage, RenderOptions } from "./email_templates.ts";
import { emailDate, sentence } from "./email_text.ts";
import { formatMoney } from "./money_format.ts";
import type { PaymentEmailRow, RefundEmailData, RefundReason } from "./payment_email_data.ts";
import { paymentMethodName, refundDestination } from "./payment_method_names.ts";

const _REASONS: Record<RefundReason, string> = {
  order_cancelled: "Your order was cancelled after you paid for it.",
  duplicate_payment: "Your order had already been paid: this payment was a second one.",
  method_mismatch: "This order was to be paid by UPI transfer to the store, not through the payment gateway.",
  amount_mismatch: "The payment was not for the order's amount, so it could not pay the order.",
  currency_mismatch: "The payment was not in the order's currency, so it could not pay the order.",
};

/** Renders the buyer's refund e-mail of one row. */
export function renderRefundEmail(
  email: PaymentEmailRow<RefundEmailData>,
  options: RenderOptions,
): EmailMessage {
  const order = email.payload;
  const amount = formatMoney(order.refund.amountMinor, order.currency);
  const tracking = fillTrackingUrl(options.trackingUrlTemplate, order, options.trackingToken);
  const lines = [
    `${order.store.name} has refunded ${amount} for order ${order.orderNumber} (placed ${
      emailDate(order.createdAt, order.currency)
    }) to ${refundDestination(order.refund.method)}.`,
    "Banks take 5–7 working days to credit a refund to your account.",
  ];
  const details = [
    `Amount: ${amount}`,
    `Paid by: ${paymentMethodName(order.refund.method)}`,
    `Issued: ${emailDate(order.refund.issuedAt, order.currency)}`,
    ...(order.refund.providerRefundId ? [`Refund reference: ${order.refund.providerRefundId}`] : []),
  ];
  const why = _REASONS[order.reason];
  const footer = sentence(`Questions about your refund? Reply to this e-mail to reach ${order.store.name}`);
  const html = [
    h1("Your refund is on its way"),
    ...lines.map((line) => paragraph(esc(line))),
    h2("Refund"),
    paragraph(details.map(esc).join("<br>")),
    h2("Why"),
    paragraph(esc(why)),
    tracking ? button(tracking, "View your order") : "",
    muted(esc(footer)),
  ].join("\n");
  const text = [
    "Your refund is on its way.",
    ...lines,
    "",
    "REFUND",
    ...details,
    "",
    "WHY",
    why,
    ...(tracking ? ["", `View your order: ${tracking}`] : []),
    "",
    footer,
  ];
  return {
    from: options.from,
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: singleLineSubject(
      `Refund of ${amount} for your order ${order.orderNumber} at ${order.store.name}`,
    ),
    html: page("Refund issued", html),
    text: text.join("\n") + "\n",
  };
}
