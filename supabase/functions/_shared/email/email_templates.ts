/**
 * The two order e-mails, buyer confirmation and seller alert, rendered from an outbox row alone: pure
 * functions, no I/O. Every value is HTML-escaped where it enters the markup, subjects are single-line.
 */
import { escapeHtml as esc, fillTrackingUrl, safeHttpUrl, singleLineSubject } from "./email_safety.ts";
import { formatMoney } from "./money_format.ts";
import type { OrderEmailData, OutboxEmail } from "./order_email.ts";

/** A message ready for a mailer: both parts, single-line subject. */
export interface EmailMessage {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
}

/** What the templates need besides the row: the sender address and the tracking link template. */
export interface RenderOptions {
  /** `From`, e.g. `Chai & Co. <orders@example.com>`. */
  from: string;
  /** The tracking page, with `{orderId}` and/or `{orderNumber}` placeholders. */
  trackingUrlTemplate: string;
}

/** Renders the buyer confirmation or the seller alert of one outbox row. */
export function renderOrderEmail(email: OutboxEmail, options: RenderOptions): EmailMessage {
  const order = email.payload;
  const content = email.kind === "buyer" ? _buyerEmail(order, options) : _sellerEmail(order);
  return {
    from: options.from,
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: singleLineSubject(content.subject),
    html: _page(content.title, content.html),
    text: content.text.join("\n") + "\n",
  };
}

/** How the buyer pays, in words; the upi_direct line tells them the seller checks the proof by hand. */
export function describePayment(order: OrderEmailData, reader: "buyer" | "seller"): string {
  if (order.paymentMethod === "upi_direct") {
    return reader === "buyer"
      ? "UPI direct transfer. The seller will verify your payment proof and then confirm your order."
      : "UPI direct transfer. Verify the payment proof before you dispatch the order.";
  }
  const via = { card: "card", upi: "UPI", wallet: "wallet" }[order.gatewayMethod ?? "card"];
  return `Online payment through the payment gateway (${via}), verified automatically.`;
}

interface _Content {
  subject: string;
  title: string;
  html: string;
  text: string[];
}

function _buyerEmail(order: OrderEmailData, options: RenderOptions): _Content {
  const tracking = fillTrackingUrl(options.trackingUrlTemplate, order);
  const html = [
    _h1(`Thank you for your order, ${order.buyer.name}`),
    _p(
      `${esc(order.store.name)} has received order <strong>${esc(order.orderNumber)}</strong>, placed ${
        esc(_date(order))
      }.`,
    ),
    tracking ? _button(tracking, "Track your order") : "",
    _h2("Items"),
    _itemsTable(order),
    _h2("Payment"),
    _p(esc(describePayment(order, "buyer"))),
    _h2("Shipping to"),
    _p(_addressLines(order).map(esc).join("<br>")),
    _muted(esc(_sentence(`Questions about your order? Reply to this e-mail to reach ${order.store.name}`))),
  ].join("\n");
  const text = [
    `Thank you for your order, ${order.buyer.name}.`,
    `${order.store.name} has received order ${order.orderNumber}, placed ${_date(order)}.`,
    ...(tracking ? ["", `Track your order: ${tracking}`] : []),
    "",
    "ITEMS",
    ..._itemsText(order),
    "",
    "PAYMENT",
    describePayment(order, "buyer"),
    "",
    "SHIPPING TO",
    ..._addressLines(order),
    "",
    _sentence(`Questions about your order? Reply to this e-mail to reach ${order.store.name}`),
  ];
  return {
    subject: `Your order ${order.orderNumber} at ${order.store.name}`,
    title: `Order ${order.orderNumber}`,
    html,
    text,
  };
}

function _sellerEmail(order: OrderEmailData): _Content {
  const proof = order.paymentMethod === "upi_direct" ? safeHttpUrl(order.paymentProofUrl) : null;
  const final = formatMoney(order.finalMinor, order.currency);
  const customer: [string, string][] = [
    ["Name", order.buyer.name],
    ["E-mail", order.buyer.email],
    ["Phone", order.buyer.phone],
  ];
  const html = [
    _h1(`New order ${order.orderNumber}`),
    _p(
      `${esc(order.buyer.name)} ordered ${esc(final)} from ${esc(order.store.name)} on ${esc(_date(order))}.`,
    ),
    _h2("Customer"),
    `<table role="presentation" style="border-collapse:collapse">${
      customer.map(([label, value]) =>
        `<tr><td style="padding:2px 16px 2px 0;color:#6b7280">${label}</td><td>${esc(value)}</td></tr>`
      ).join("")
    }</table>`,
    _h2("Ship to"),
    _p(_addressLines(order).map(esc).join("<br>")),
    _h2("Items to fulfil"),
    _itemsTable(order),
    _h2("Payment"),
    _p(esc(describePayment(order, "seller"))),
    proof ? _button(proof, "View payment proof") : "",
    _muted("Reply to this e-mail to write to the customer."),
  ].join("\n");
  const text = [
    `New order ${order.orderNumber}`,
    `${order.buyer.name} ordered ${final} from ${order.store.name} on ${_date(order)}.`,
    "",
    "CUSTOMER",
    ...customer.map(([label, value]) => `${label}: ${value}`),
    "",
    "SHIP TO",
    ..._addressLines(order),
    "",
    "ITEMS TO FULFIL",
    ..._itemsText(order),
    "",
    "PAYMENT",
    describePayment(order, "seller"),
    ...(proof ? [`Payment proof: ${proof}`] : []),
    "",
    "Reply to this e-mail to write to the customer.",
  ];
  return {
    subject: `New order ${order.orderNumber} from ${order.buyer.name}: ${final}`,
    title: "New order",
    html,
    text,
  };
}

function _itemName(item: OrderEmailData["items"][number]): string {
  return item.variantName ? `${item.productName} (${item.variantName})` : item.productName;
}

function _totals(order: OrderEmailData): [string, string][] {
  return [
    ["Subtotal", formatMoney(order.totalMinor, order.currency)],
    ["Checkout fee", formatMoney(order.feeMinor, order.currency)],
    ["Total", formatMoney(order.finalMinor, order.currency)],
  ];
}

function _itemsTable(order: OrderEmailData): string {
  const cell = "padding:8px 6px;border-bottom:1px solid #e5e7eb";
  const num = `${cell};text-align:right;white-space:nowrap`;
  const head = ["Item", "Qty", "Unit price", "Line total"].map((h, i) =>
    `<th style="${i ? num : `${cell};text-align:left`};color:#6b7280;font-weight:600">${h}</th>`
  ).join("");
  const rows = order.items.map((item) =>
    `<tr><td style="${cell}">${esc(item.productName)}${
      item.variantName ? `<br><span style="color:#6b7280">${esc(item.variantName)}</span>` : ""
    }</td><td style="${num}">${esc(item.quantity)}</td><td style="${num}">${
      esc(formatMoney(item.unitPriceMinor, order.currency))
    }</td><td style="${num}">${esc(formatMoney(item.lineTotalMinor, order.currency))}</td></tr>`
  ).join("\n");
  const totals = _totals(order).map(([label, value], i, all) => {
    const weight = i === all.length - 1 ? "font-weight:700;" : "";
    return `<tr><td colspan="3" style="padding:4px 6px;text-align:right;${weight}">${label}</td>` +
      `<td style="padding:4px 6px;text-align:right;white-space:nowrap;${weight}">${esc(value)}</td></tr>`;
  }).join("\n");
  return `<table role="presentation" width="100%" style="border-collapse:collapse;font-size:14px">
<tr>${head}</tr>
${rows}
${totals}
</table>`;
}

function _itemsText(order: OrderEmailData): string[] {
  const lines = order.items.map((item) =>
    `- ${_itemName(item)} x ${item.quantity} @ ${formatMoney(item.unitPriceMinor, order.currency)} = ${
      formatMoney(item.lineTotalMinor, order.currency)
    }`
  );
  return [...lines, ..._totals(order).map(([label, value]) => `${label}: ${value}`)];
}

function _addressLines(order: OrderEmailData): string[] {
  const a = order.shippingAddress;
  return [
    order.buyer.name,
    a.line1,
    ...(a.line2 ? [a.line2] : []),
    `${a.city}, ${a.state} ${a.postalCode}`,
    a.country,
  ];
}

/** Ends `text` with a full stop unless it ends with one already ("Chai & Co." stays as it is). */
function _sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function _date(order: OrderEmailData): string {
  const date = new Date(order.createdAt);
  if (Number.isNaN(date.getTime())) return order.createdAt;
  return order.currency.toUpperCase() === "INR" ? _dateInIndia.format(date) : _dateInUtc.format(date);
}

// made once: building an Intl formatter per e-mail was a large share of the service's CPU under load
const _dateInIndia = new Intl.DateTimeFormat("en-IN", { dateStyle: "medium", timeZone: "Asia/Kolkata" });
const _dateInUtc = new Intl.DateTimeFormat("en-IN", { dateStyle: "medium", timeZone: "UTC" });

const _h1 = (text: string) => `<h1 style="font-size:22px;margin:0 0 12px">${esc(text)}</h1>`;
const _h2 = (text: string) =>
  `<h2 style="font-size:15px;margin:24px 0 8px;text-transform:uppercase;letter-spacing:.04em;color:#374151">${text}</h2>`;
const _p = (html: string) => `<p style="margin:0 0 8px;line-height:1.5">${html}</p>`;
const _muted = (html: string) => `<p style="margin:28px 0 0;color:#6b7280;font-size:13px">${html}</p>`;
const _button = (href: string, label: string) =>
  `<p style="margin:16px 0"><a href="${
    esc(href)
  }" style="display:inline-block;background:#111827;color:#ffffff;` +
  `padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:600">${esc(label)}</a></p>`;

function _page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${
    esc(title)
  }</title></head>
<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#111827">
<div style="max-width:600px;margin:0 auto;background:#ffffff;border-radius:8px;padding:28px">
${body}
</div>
</body></html>
`;
}
