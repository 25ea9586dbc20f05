/**
 * The rules that keep buyer-supplied text harmless inside an e-mail: HTML escaping, single-line subjects,
 * and links that can only be http(s).
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

/**
 * Makes a subject header-safe: CR, LF and every other control character become one space (so no value
 * can start a new header line), runs of white space collapse, and the result is capped at
 * {@linkcode SUBJECT_MAX_LENGTH} characters.
 */
export function singleLineSubject(subject: string): string {
  // deno-lint-ignore no-control-regex
  const flat = subject.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim();
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
 * The order's tracking link: `template` with `{orderId}` and `{orderNumber}` replaced by their
 * URL-encoded values; null when the result is no http(s) URL.
 */
export function fillTrackingUrl(
  template: string,
  order: { orderId: string; orderNumber: string },
): string | null {
  const filled = template
    .replaceAll("{orderId}", encodeURIComponent(order.orderId))
    .replaceAll("{orderNumber}", encodeURIComponent(order.orderNumber));
  return safeHttpUrl(filled);
}
