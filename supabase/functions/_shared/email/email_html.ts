/**
 * The HTML building blocks of the order e-mails: headings, paragraphs, a button, the buyer's own text set
 * apart, and the page. Each takes text to escape or HTML already escaped, as its parameter's name says.
 */
import { escapeHtml as esc } from "./email_safety.ts";

/** A heading of the message. */
export const h1 = (text: string) => `<h1 style="font-size:22px;margin:0 0 12px">${esc(text)}</h1>`;

/** A section heading. */
export const h2 = (text: string) =>
  `<h2 style="font-size:15px;margin:24px 0 8px;text-transform:uppercase;letter-spacing:.04em;color:#374151">${
    esc(text)
  }</h2>`;

/** A paragraph of escaped HTML. */
export const paragraph = (html: string) => `<p style="margin:0 0 8px;line-height:1.5">${html}</p>`;

/** A small grey closing paragraph of escaped HTML. */
export const muted = (html: string) => `<p style="margin:28px 0 0;color:#6b7280;font-size:13px">${html}</p>`;

/** A link styled as a button. */
export const button = (href: string, label: string) =>
  `<p style="margin:16px 0"><a href="${
    esc(href)
  }" style="display:inline-block;background:#111827;color:#ffffff;` +
  `padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:600">${esc(label)}</a></p>`;

/** One value the buyer typed, escaped and isolated (`<bdi>`), so right-to-left text cannot reorder ours. */
export const buyerValue = (text: string) => `<bdi>${esc(text)}</bdi>`;

/**
 * Lines the buyer typed (an address, contact details), set apart from our text: a grey bar and a caption
 * that says whose words they are. `rows` are [label, value] pairs; an empty label shows the value alone.
 */
export function buyerBlock(caption: string, rows: [string, string][]): string {
  const lines = rows.map(([label, value]) =>
    label ? `<span style="color:#6b7280">${esc(label)}:</span> ${buyerValue(value)}` : buyerValue(value)
  );
  return `<div style="border-left:3px solid #d1d5db;padding:2px 0 2px 12px;margin:0 0 8px;line-height:1.5">` +
    `<div style="color:#6b7280;font-size:12px">${esc(caption)}</div>${lines.join("<br>")}</div>`;
}

/** The whole message around `bodyHtml`. */
export function page(title: string, bodyHtml: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${
    esc(title)
  }</title></head>
<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#111827">
<div style="max-width:600px;margin:0 auto;background:#ffffff;border-radius:8px;padding:28px">
${bodyHtml}
</div>
</body></html>
`;
}
