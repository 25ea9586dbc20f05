/**
 * The contract's buyer e-mail rule: a dot-atom local part, `@`, and a DNS domain, as one pattern that the
 * API description carries too. The database checks the same shape (is_email_address in SQL). Pure.
 */

/** The longest address accepted (RFC 5321's path limit less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

// atext of RFC 5322: letters, digits and !#$%&'*+/=?^_`{|}~-
const _ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
// a DNS label of at most 63 letters, digits and inner hyphens
const _LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

/**
 * The shape of {@linkcode isEmailAddress} but for the total length: a local part of at most 64 characters
 * made of atoms joined by single dots (no quoted local parts); `@`; a domain of at least two labels, the
 * last one letters only or an `xn--` IDN label (no IP literals). One pattern, so that the API description
 * (JSON Schema's `pattern`) says exactly what is accepted.
 */
export const EMAIL_ADDRESS_PATTERN = new RegExp(
  "^(?=[^@]{1,64}@)" + _ATEXT + "+(?:\\." + _ATEXT + "+)*@(?:" + _LABEL + "\\.)+" +
    "(?:[A-Za-z]{1,63}|[Xx][Nn]--[A-Za-z0-9-]{0,58}[A-Za-z0-9])$",
  "u",
);

/** Whether `address` is an e-mail address of the contract's shape, at most 254 characters in all. */
export function isEmailAddress(address: string): boolean {
  return address.length <= MAX_EMAIL_LENGTH && EMAIL_ADDRESS_PATTERN.test(address);
}
