/**
 * The seller's e-mail when the gateway has marked an order paid: "Payment received for ORD-…: ready to
 * ship" (sent after the order was shipped: where it is now), the amount, the method the buyer actually paid
 * by (and the one chosen at checkout when it differs), any fee shortfall in rupees, the items to ship and
 * where, Reply-To the buyer. Pure, with the order e-mails' rules: every value escaped, the buyer's text set
 * apart, a single-line subject of our values only.
 */
import { buyerBlock, h1, h2, muted, page, paragraph } from "./email_html.ts";
import { itemsTable, itemsText } from "./email_items.ts";
import { escapeHtml as esc, oneLine, singleLineSubject } from "./email_safety.ts";
import type { EmailMessage, RenderOptions } from "./email_templates.ts";
import { emailDate, quotedLines } from "./email_text.ts";
import { formatMoney } from "./money_format.ts";
import type { PaymentEmailRow, SellerPaidEmailData } from "./payment_email_data.ts";
import { paymentMethodName } from "./payment_method_names.ts";

/** Renders the seller's "payment received" e-mail of one row. */
export function renderSellerPaidEmail(
  email: PaymentEmailRow<SellerPaidEmailData>,
  options: Pick<RenderOptions, "from">,
): EmailMessage {
  const order = email.payload;
  const amount = formatMoney(order.payment.amountMinor, order.currency);
  const opening = `${amount} for order ${order.orderNumber} at ${order.store.name}, placed ${
    emailDate(order.createdAt, order.currency)
  }, was paid through the payment gateway on ${emailDate(order.payment.paidAt, order.currency)}.`;
  const payment = _paymentLines(order);
  const customer: [string, string][] = [
    ["Name", order.buyer.name],
    ["E-mail", order.buyer.email],
    ["Phone", order.buyer.phone],
  ];
  const address = _addressLines(order);
  // what comes next follows the order as it is when the e-mail goes: shipped since, there is nothing to ship
  const shippedSince = order.currentStatus === "shipped" || order.currentStatus === "delivered";
  const title = shippedSince ? "Payment received" : "Payment received: ready to ship";
  const since = shippedSince ? [`Since then, the order has been marked as ${order.currentStatus}.`] : [];
  const html = [
    h1(title),
    paragraph(esc(opening)),
    ...since.map((line) => paragraph(esc(line))),
    h2("Payment"),
    paragraph(payment.map(esc).join("<br>")),
    h2(shippedSince ? "Items" : "Items to ship"),
    itemsTable(order),
    h2("Ship to"),
    buyerBlock("As the buyer entered it", address.map((line) => ["", line])),
    h2("Customer"),
    buyerBlock("As the buyer entered it", customer),
    muted("Reply to this e-mail to write to the customer."),
  ].join("\n");
  const text = [
    `${title}.`,
    opening,
    ...since,
    "",
    "PAYMENT",
    ...payment,
    "",
    shippedSince ? "ITEMS" : "ITEMS TO SHIP",
    ...itemsText(order),
    "",
    "SHIP TO (as the buyer entered it)",
    ...quotedLines(address),
    "",
    "CUSTOMER (as the buyer entered it)",
    ...quotedLines(customer.map(([label, value]) => `${label}: ${oneLine(value)}`)),
    "",
    "Reply to this e-mail to write to the customer.",
  ];
  return {
    from: options.from,
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    // our values only: no buyer text can reach a subject that says money arrived
    subject: singleLineSubject(
      `Payment received for ${order.orderNumber}${shippedSince ? "" : ": ready to ship"}`,
    ),
    html: page("Payment received", html),
    text: text.join("\n") + "\n",
  };
}

/** Amount, the method used (and the one chosen when it differs), and the fee shortfall. */
function _paymentLines(order: SellerPaidEmailData): string[] {
  const used = paymentMethodName(order.payment.method);
  const chosen = paymentMethodName(order.gatewayMethod);
  const lines = [
    `Received: ${
      formatMoney(order.payment.amountMinor, order.currency)
    }, paid by ${used}, confirmed by the gateway.`,
  ];
  if (order.payment.method && used !== chosen) {
    lines.push(`The buyer chose ${chosen} at checkout and paid by ${used}.`);
  }
  if (order.payment.feeShortfallMinor > 0) {
    lines.push(
      `Fee shortfall: ${
        formatMoney(order.payment.feeShortfallMinor, order.currency)
      }. The gateway's fee for ` +
        `${used} is more than the ${
          formatMoney(order.feeMinor, order.currency)
        } checkout fee the buyer paid ` +
        `for ${chosen}.`,
    );
  }
  return lines;
}

function _addressLines(order: SellerPaidEmailData): string[] {
  const a = order.shippingAddress;
  return [
    order.buyer.name,
    a.line1,
    ...(a.line2 ? [a.line2] : []),
    `${a.city}, ${a.state} ${a.postalCode}`,
    a.country,
  ];
}
