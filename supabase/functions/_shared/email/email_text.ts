/** Plain-text helpers the e-mail templates share: quoted lines of others' text, sentences, dates. Pure. */
import { wrapQuoted } from "./email_safety.ts";

/**
 * Text someone else typed (the buyer's, the store's), for the plain-text part: wrapped by us behind "| "
 * ({@linkcode wrapQuoted}), so neither the text nor a reader's line wrapping starts a line of ours.
 */
export function quotedLines(lines: string[]): string[] {
  return lines.flatMap(wrapQuoted);
}

/** Ends `text` with a full stop unless it ends with one already ("Chai & Co." stays as it is). */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A date for people: India's time zone for an INR store, else UTC; an unreadable value as it is. */
export function emailDate(iso: string, currency: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return currency.toUpperCase() === "INR" ? _dateInIndia.format(date) : _dateInUtc.format(date);
}

// made once: building an Intl formatter per e-mail was a large share of the service's CPU under load
const _dateInIndia = new Intl.DateTimeFormat("en-IN", { dateStyle: "medium", timeZone: "Asia/Kolkata" });
const _dateInUtc = new Intl.DateTimeFormat("en-IN", { dateStyle: "medium", timeZone: "UTC" });
