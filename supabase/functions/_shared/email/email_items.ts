/** The order's items and totals in the e-mails, as an HTML table and as plain-text lines. Pure. */
import { escapeHtml as esc, oneLine } from "./email_safety.ts";
import { formatMoney } from "./money_format.ts";
import type { OrderEmailData } from "./order_email.ts";

/** What the items and totals are drawn from: an order's e-mail snapshot or a status e-mail's. */
type _Priced = Pick<OrderEmailData, "items" | "currency" | "totalMinor" | "feeMinor" | "finalMinor">;

function _itemName(item: OrderEmailData["items"][number]): string {
  return item.variantName ? `${item.productName} (${item.variantName})` : item.productName;
}

function _totals(order: _Priced): [string, string][] {
  return [
    ["Subtotal", formatMoney(order.totalMinor, order.currency)],
    ["Checkout fee", formatMoney(order.feeMinor, order.currency)],
    ["Total", formatMoney(order.finalMinor, order.currency)],
  ];
}

/** The items with quantities, unit prices and line totals, then subtotal, fee and total, as an HTML table. */
export function itemsTable(order: _Priced): string {
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

/** The same as {@linkcode itemsTable}, as plain-text lines. */
export function itemsText(order: _Priced): string[] {
  const lines = order.items.map((item) =>
    `- ${oneLine(_itemName(item))} x ${item.quantity} @ ${
      formatMoney(item.unitPriceMinor, order.currency)
    } = ${formatMoney(item.lineTotalMinor, order.currency)}`
  );
  return [...lines, ..._totals(order).map(([label, value]) => `${label}: ${value}`)];
}
