/**
 * The buyer's e-mails about a move of their order: paid, shipped, delivered, cancelled. Pure, rendered
 * from the outbox row alone, with the order e-mails' rules: every value escaped where it enters the
 * markup, a single-line subject, HTML and plain text, and text the store typed (a note, a reason, the
 * carrier and tracking number) set apart from ours: in the HTML under a grey bar with a caption, in the
 * plain text on indented lines that start "| ". Each sentence says only what the order's status proves, and
 * what comes next follows the order's status when the e-mail goes (it may have moved on since the move).
 */
import { button, buyerBlock, h1, h2, muted, page, paragraph } from "./email_html.ts";
import { itemsTable, itemsText } from "./email_items.ts";
import { escapeHtml as esc, fillTrackingUrl, safeHttpUrl, singleLineSubject } from "./email_safety.ts";
import type { EmailMessage, RenderOptions } from "./email_templates.ts";
import { emailDate, quotedLines, sentence } from "./email_text.ts";
import { cancelledPaymentLines } from "./cancelled_payment.ts";
import { formatMoney } from "./money_format.ts";
import type { OrderStatus, StatusEmailData, StatusOutboxEmail } from "./order_email.ts";
import { describePayment } from "./payment_wording.ts";

/** A section of the e-mail in both parts: HTML blocks and plain-text lines. */
interface _Section {
  html: string[];
  text: string[];
}

interface _Content {
  subject: string;
  title: string;
  sections: _Section[];
}

/** Renders the buyer's e-mail about the status an order moved to. */
export function renderStatusEmail(email: StatusOutboxEmail, options: RenderOptions): EmailMessage {
  const order = email.payload;
  const content = _CONTENT[order.status](order);
  const tracking = fillTrackingUrl(options.trackingUrlTemplate, order, options.trackingToken);
  const footer = sentence(`Questions about your order? Reply to this e-mail to reach ${order.store.name}`);
  const sections: _Section[] = [
    ...content.sections,
    tracking
      ? { html: [button(tracking, "Track your order")], text: ["", `Track your order: ${tracking}`] }
      : { html: [], text: [] },
    { html: [muted(esc(footer))], text: ["", footer] },
  ];
  return {
    from: options.from,
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: singleLineSubject(content.subject),
    html: page(content.title, sections.flatMap((section) => section.html).join("\n")),
    text: sections.flatMap((section) => section.text).join("\n") + "\n",
  };
}

const _CONTENT: Record<StatusEmailData["status"], (order: StatusEmailData) => _Content> = {
  paid: (order) => ({
    subject: `Payment received for your order ${order.orderNumber} at ${order.store.name}`,
    title: "Payment received",
    sections: [
      _opening("Payment received", [_paidOpening(order)]),
      _plainSection("Payment", describePayment({ ...order, status: "paid" }, "buyer")),
      _itemsSection(order),
      _nextSection(
        order,
        `You will get another e-mail when ${order.store.name} marks your order as shipped.`,
      ),
    ],
  }),
  shipped: (order) => ({
    subject: `Your order ${order.orderNumber} at ${order.store.name} has shipped`,
    title: "Shipped",
    sections: [
      _opening("Your order is on its way", [
        `${order.store.name} has marked order ${order.orderNumber} as shipped.`,
      ]),
      _shipmentSection(order),
      _itemsSection(order),
      _nextSection(order, null),
    ],
  }),
  delivered: (order) => ({
    subject: `Your order ${order.orderNumber} at ${order.store.name} was delivered`,
    title: "Delivered",
    sections: [
      _opening("Delivered", [
        `${order.store.name} has marked order ${order.orderNumber} as delivered.`,
        sentence(`If the parcel has not reached you, reply to this e-mail to tell ${order.store.name}`),
      ]),
      _storeNote("The store's note", order.note),
    ],
  }),
  cancelled: (order) => ({
    subject: `Your order ${order.orderNumber} at ${order.store.name} was cancelled`,
    title: "Order cancelled",
    sections: [
      _opening("Order cancelled", [
        `Order ${order.orderNumber} at ${order.store.name}, placed ${
          _date(order.createdAt, order)
        }, has been cancelled.`,
      ]),
      // the system's reason (an unpaid order's time ran out) is ours; a seller's is set apart as theirs
      order.movedBy === "system" && order.note
        ? _plainSection("Reason", [order.note])
        : _storeNote("Reason given by the store", order.note),
      _plainSection("Payment", _cancelledPayment(order)),
      _itemsSection(order),
    ],
  }),
};

/** The heading and opening sentences (ours, with the store's name and the order number in them). */
function _opening(title: string, lines: string[]): _Section {
  return {
    html: [h1(title), ...lines.map((line) => paragraph(esc(line)))],
    text: [`${title}.`, ...lines],
  };
}

/** A section of our own sentences. */
function _plainSection(title: string, lines: string[]): _Section {
  return {
    html: [h2(title), paragraph(lines.map(esc).join("<br>"))],
    text: ["", title.toUpperCase(), ...lines],
  };
}

function _itemsSection(order: StatusEmailData): _Section {
  return { html: [h2("Items"), itemsTable(order)], text: ["", "ITEMS", ...itemsText(order)] };
}

/** Text the store typed, set apart under a caption that says whose words they are; nothing when absent. */
function _storeNote(caption: string, note: string | null): _Section {
  if (!note) return { html: [], text: [] };
  return {
    html: [buyerBlock(caption, [["", note]])],
    text: ["", `${caption.toUpperCase()}:`, ...quotedLines([note])],
  };
}

/** The carrier and tracking number as the store entered them, and the carrier's link when it is http(s). */
function _shipmentSection(order: StatusEmailData): _Section {
  const rows: [string, string][] = [
    ...(order.carrier ? [["Carrier", order.carrier] as [string, string]] : []),
    ...(order.trackingNumber ? [["Tracking number", order.trackingNumber] as [string, string]] : []),
  ];
  const link = safeHttpUrl(order.trackingUrl);
  const note = _storeNote("The store's note", order.note);
  if (rows.length === 0 && !link) {
    return {
      html: [h2("Shipment"), paragraph("The store has not given tracking details."), ...note.html],
      text: ["", "SHIPMENT", "The store has not given tracking details.", ...note.text],
    };
  }
  return {
    html: [
      h2("Shipment"),
      ...(rows.length > 0 ? [buyerBlock("As the store entered it", rows)] : []),
      ...(link ? [button(link, "Track the parcel")] : []),
      ...note.html,
    ],
    text: [
      "",
      "SHIPMENT (as the store entered it)",
      ...quotedLines(rows.map(([label, value]) => `${label}: ${value}`)),
      ...(link ? [`Track the parcel: ${link}`] : []),
      ...note.text,
    ],
  };
}

/** The paid e-mail's first sentence: who confirmed the payment, the gateway or the seller. */
function _paidOpening(order: StatusEmailData): string {
  const placed = `order ${order.orderNumber}, placed ${_date(order.createdAt, order)}`;
  const amount = formatMoney(order.finalMinor, order.currency);
  switch (order.paidBy) {
    case "payment_gateway":
      return `The payment gateway has confirmed your payment for ${placed}: ${amount}.`;
    case "seller":
      return `${order.store.name} has confirmed receiving your payment for ${placed}: ${amount}.`;
    default:
      return `${order.store.name} has marked ${placed} as paid: ${amount}.`;
  }
}

/**
 * What a cancellation means for the money, from what was recorded when it was cancelled (see
 * `cancelled_payment.ts`); an order nobody paid gets no promise.
 */
function _cancelledPayment(order: StatusEmailData): string[] {
  // rows written before the payments were recorded with the e-mail: the status the order left says it
  const paidBy = order.paidBy !== undefined
    ? order.paidBy
    : order.previousStatus === "paid" || order.previousStatus === "processing"
    ? "system"
    : null;
  return cancelledPaymentLines({ ...order, paidBy }) ?? [
    "No payment had been recorded for this order.",
    sentence(`If you did pay, reply to this e-mail to tell ${order.store.name}`),
  ];
}

/**
 * The line about what comes next: the move the buyer hears of next, or, when the order has moved on since
 * this e-mail's move (it goes late), where it is now. Nothing when neither applies.
 */
function _nextSection(order: StatusEmailData, next: string | null): _Section {
  const current = order.currentStatus ?? order.status;
  const since = _MOVED_ON[order.status].includes(current) ? _SINCE[current]?.(order.store.name) : undefined;
  if (since) return _plainSection("Since then", [since]);
  return next ? _plainSection("Next", [next]) : { html: [], text: [] };
}

/** The statuses an order may reach after each e-mailed one that change what the e-mail may say comes next. */
const _MOVED_ON: Record<StatusEmailData["status"], OrderStatus[]> = {
  paid: ["shipped", "delivered", "cancelled"],
  shipped: ["delivered"],
  delivered: [],
  cancelled: [],
};

/** Where an order has moved on to, in a sentence. */
const _SINCE: Partial<Record<OrderStatus, (store: string) => string>> = {
  shipped: (store) =>
    `${store} has marked your order as shipped: a separate e-mail has the shipment's details.`,
  delivered: (store) => `${store} has marked your order as delivered.`,
  cancelled: () => "The order has been cancelled.",
};

function _date(iso: string, order: StatusEmailData): string {
  return emailDate(iso, order.currency);
}
