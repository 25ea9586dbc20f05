/**
 * Captured log lines and the scan for what must never appear in a log line or an error body:
 * stack traces, SQL, keys and a buyer's personal data.
 */
import type { Logger } from "../../supabase/functions/_shared/http/log.ts";

/** A Logger that keeps each event as its JSON line. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (event: Record<string, unknown>) => void lines.push(JSON.stringify(event));
  return Object.assign(log, { lines });
}

const _GENERIC_LEAKS: [string, RegExp][] = [
  ["stack trace", /\bat [\w.<>$]+ \(|(?:file|https?):\/\/\S+\.[tj]s:\d+|\.ts:\d+:\d+/],
  ["SQL", /\b(select|insert into|update|delete from)\b[\s\S]*\b(from|values|set|where)\b/i],
  ["SQL object", /\bpublic\.(orders|order_items|stores|products|email_outbox|create_order)\b/i],
  ["SQLSTATE", /\bSQLSTATE\b|\b(OC[A-Z0-9]\d\d|OCR29|23\d{3}|42\d{3}|57P0\d)\b.*\bline\b/],
  ["e-mail address", /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/],
  ["E.164 phone", /\+\d{7,15}\b/],
  ["bearer token", /Bearer\s+[A-Za-z0-9._~+/-]{8,}/i],
];

/**
 * The leaks found in `text`: generic shapes (stack frames, SQL, addresses, phones, bearer tokens) and
 * each of `secrets` (keys, the buyer's name, phone digits, address lines) verbatim.
 */
export function findLeaks(text: string, secrets: readonly string[] = []): string[] {
  const found = _GENERIC_LEAKS.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
  for (const secret of secrets) {
    if (secret && text.includes(secret)) found.push(`secret ${JSON.stringify(secret)}`);
  }
  return found;
}
