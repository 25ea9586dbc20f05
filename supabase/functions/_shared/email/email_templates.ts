/**
 * The two order e-mails, buyer confirmation and seller alert, rendered from an outbox row alone: pure
 * functions, no I/O. Every value is HTML-escaped where it enters the markup, subjects are single-line,
 * and what the buyer typed is set apart from our own text in both parts, so it can never pass for a
 * section of ours: in the HTML under a grey bar, in the plain text on indented lines that start "| ".
 */
import { button, buyerBlock, h1, h2, muted, page, paragraph } from "./email_html.ts";
import { itemsTable, itemsText } from "./email_items.ts";
import {
  escapeHtml as esc,
  fillTrackingUrl,
  oneLine,
  safeHttpUrl,
  singleLineSubject,
} from "./email_safety.ts";
import { emailDate, quotedLines, sentence } from "./email_text.ts";
import { formatMoney } from "./money_format.ts";
import type { OrderEmailData, OrderOutboxEmail } from "./order_email.ts";
import { describePayment, isPaidStatus } from "./payment_wording.ts";

/** A message ready for a mailer: both parts, single-line subject. */
export interface EmailMessage {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
}

/** What the templates need besides the row: the sender address, the tracking link template and token. */
export interface RenderOptions {
  /** `From`, e.g. `Chai & Co. <orders@example.com>`. */
  from: string;
  /** The tracking page, with `{orderId}`, `{orderNumber}` and `{token}` placeholders. */
  trackingUrlTemplate: string;
  /**
   * The order's tracking token for `{token}` (`orderTrackingToken`), computed by the sender: the templates
   * stay pure. Without it a template that asks for `{token}` renders no tracking link.
   */
  trackingToken?: string;
}

/** Renders the buyer confirmation or the seller alert of one outbox row. */
export function renderOrderEmail(email: OrderOutboxEmail, options: RenderOptions): EmailMessage {
  const order = email.payload;
  const content = email.kind === "buyer" ? _buyerEmail(order, options) : _sellerEmail(order);
  return {
    from: options.from,
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: singleLineSubject(content.subject),
    html: page(content.title, content.html),
    text: content.text.join("\n") + "\n",
  };
}

interface _Content {
  subject: string;
  title: string;
  html: string;
  text: string[];
}

function _buyerEmail(order: OrderEmailData, options: RenderOptions): _Content {
  const tracking = fillTrackingUrl(options.trackingUrlTemplate, order, options.trackingToken);
  const payment = describePayment(order, "buyer");
  // a gateway order still awaiting its payment: the order's page offers it (start-payment, then Checkout)
  const payNow = tracking && order.paymentMethod === "gateway" &&
      (order.status ?? "payment_pending") === "payment_pending"
    ? `Pay ${formatMoney(order.finalMinor, order.currency)} now`
    : null;
  const html = [
    h1("Thank you for your order"),
    paragraph(
      `Order <strong>${esc(order.orderNumber)}</strong> at ${esc(order.store.name)}, placed ${
        esc(_date(order))
      }.`,
    ),
    tracking ? button(tracking, "Track your order") : "",
    h2("Items"),
    itemsTable(order),
    h2("Payment"),
    paragraph(payment.map(esc).join("<br>")),
    payNow ? button(tracking!, payNow) : "",
    h2("Shipping to"),
    buyerBlock("As you entered it", _addressLines(order).map((line) => ["", line])),
    muted(esc(sentence(`Questions about your order? Reply to this e-mail to reach ${order.store.name}`))),
  ].join("\n");
  const text = [
    "Thank you for your order.",
    `Order ${order.orderNumber} at ${order.store.name}, placed ${_date(order)}.`,
    ...(tracking ? ["", `Track your order: ${tracking}`] : []),
    "",
    "ITEMS",
    ...itemsText(order),
    "",
    "PAYMENT",
    ...payment,
    ...(payNow ? [`${payNow}: ${tracking}`] : []),
    "",
    "SHIPPING TO (as you entered it)",
    ...quotedLines(_addressLines(order)),
    "",
    sentence(`Questions about your order? Reply to this e-mail to reach ${order.store.name}`),
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
  const payment = describePayment(order, "seller");
  const customer: [string, string][] = [
    ["Name", order.buyer.name],
    ["E-mail", order.buyer.email],
    ["Phone", order.buyer.phone],
  ];
  const html = [
    h1(`New order ${order.orderNumber}`),
    paragraph(`${esc(final)} at ${esc(order.store.name)}, placed ${esc(_date(order))}.`),
    h2("Customer"),
    buyerBlock("As the buyer entered it", customer),
    h2("Ship to"),
    buyerBlock("As the buyer entered it", _addressLines(order).map((line) => ["", line])),
    h2("Items to fulfil"),
    itemsTable(order),
    h2("Payment"),
    paragraph(payment.map(esc).join("<br>")),
    proof ? button(proof, "View the buyer's payment proof") : "",
    muted("Reply to this e-mail to write to the customer."),
  ].join("\n");
  const text = [
    `New order ${order.orderNumber}`,
    `${final} at ${order.store.name}, placed ${_date(order)}.`,
    "",
    "CUSTOMER (as the buyer entered it)",
    ...quotedLines(customer.map(([label, value]) => `${label}: ${oneLine(value)}`)),
    "",
    "SHIP TO (as the buyer entered it)",
    ...quotedLines(_addressLines(order)),
    "",
    "ITEMS TO FULFIL",
    ...itemsText(order),
    "",
    "PAYMENT",
    ...payment,
    ...(proof ? [`Payment proof (the buyer's link): ${proof}`] : []),
    "",
    "Reply to this e-mail to write to the customer.",
  ];
  return {
    // our values only: a buyer's name here could claim a payment in a line of ours
    subject: `New order ${order.orderNumber}: ${final}, ${
      isPaidStatus(order.status) ? "paid" : "payment not confirmed yet"
    }`,
    title: "New order",
    html,
    text,
  };
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

function _date(order: OrderEmailData): string {
  return emailDate(order.createdAt, order.currency);
}
