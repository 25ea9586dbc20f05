/**
 * The rules that keep buyer-supplied text harmless inside an e-mail: HTML escaping, single lines and
 * single-line subjects, and links that can only be http(s).
 */

const _HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes the five characters that matter in HTML text and in quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (char) => _HTML_ESCAPES[char]);
}

/** The longest subject we send; longer ones end with an ellipsis. */
export const SUBJECT_MAX_LENGTH = 150;

// C0, DEL, C1, the Unicode line and paragraph separators, and the bidi embeddings, overrides and isolates
// deno-lint-ignore no-control-regex
const _LINE_BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/**
 * One line of plain text: every control character, line break and bidi control becomes a space. The
 * request schema already refuses them in buyer text; this keeps a row written some other way from
 * starting a line of its own in an e-mail.
 */
export function oneLine(text: string): string {
  return text.replace(_LINE_BREAKERS, " ");
}

/** The widest line of buyer text in a plain-text part, its marker included: no reader wraps it. */
export const QUOTED_LINE_WIDTH = 64;

/**
 * Buyer text for a plain-text part: one line ({@linkcode oneLine}), white space collapsed, wrapped by the
 * sender at {@linkcode QUOTED_LINE_WIDTH} (long words cut), every line behind the marker `  | `. A reader's
 * own wrapping would otherwise start a line of the buyer's text without the marker.
 */
export function wrapQuoted(text: string): string[] {
  const marker = "  | ";
  const width = QUOTED_LINE_WIDTH - marker.length;
  const lines: string[] = [];
  let line: string[] = [];
  for (const word of oneLine(text).split(/\s+/).filter(Boolean)) {
    let chars = [...word];
    if (line.length > 0 && line.length + 1 + chars.length > width) {
      lines.push(line.join(""));
      line = [];
    }
    while (chars.length > width) {
      lines.push(chars.slice(0, width).join(""));
      chars = chars.slice(width);
    }
    line = line.length > 0 ? [...line, " ", ...chars] : chars;
  }
  if (line.length > 0 || lines.length === 0) lines.push(line.join(""));
  return lines.map((piece) => `${marker}${piece}`);
}

/**
 * Makes a subject header-safe: {@linkcode oneLine} (so no value can start a new header line or reorder the
 * subject), runs of white space collapsed, and the result capped at {@linkcode SUBJECT_MAX_LENGTH}
 * characters.
 */
export function singleLineSubject(subject: string): string {
  const flat = oneLine(subject).replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= SUBJECT_MAX_LENGTH
    ? flat
    : `${chars.slice(0, SUBJECT_MAX_LENGTH - 1).join("").trimEnd()}…`;
}

/** The URL when it is an absolute http: or https: URL, else null (javascript:, data:, relative, garbage). */
export function safeHttpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The order's tracking link: `template` with `{orderId}`, `{orderNumber}` and `{token}` (the order's
 * tracking token, computed by the caller) replaced by their URL-encoded values; null when the result is no
 * http(s) URL, or when the template asks for a token and none was given (a link that could only fail).
 */
export function fillTrackingUrl(
  template: string,
  order: { orderId: string; orderNumber: string },
  token?: string,
): string | null {
  if (template.includes("{token}") && !token) return null;
  const filled = template
    .replaceAll("{orderId}", encodeURIComponent(order.orderId))
    .replaceAll("{orderNumber}", encodeURIComponent(order.orderNumber))
    .replaceAll("{token}", encodeURIComponent(token ?? ""));
  return safeHttpUrl(filled);
}
