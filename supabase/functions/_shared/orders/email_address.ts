/**
 * The contract's buyer e-mail rule, as a small validator rather than one long regular expression: a
 * dot-atom local part, `@`, and a DNS domain. The database checks the same shape (is_email_address in
 * SQL). Pure.
 */

/** The longest address accepted (RFC 5321's path limit less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

// atext of RFC 5322: letters, digits and !#$%&'*+/=?^_`{|}~-
const _ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
// a DNS label: letters, digits and inner hyphens
const _LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const _LETTERS = /^[A-Za-z]+$/;
const _IDN_LABEL = /^xn--[A-Za-z0-9-]*[A-Za-z0-9]$/i;

/**
 * Whether `address` is an e-mail address of the contract's shape: at most 254 characters; a local part
 * of at most 64 characters made of atoms joined by single dots (no quoted local parts); `@`; a domain of
 * at least two labels of at most 63 letters, digits and inner hyphens, the last one letters only or an
 * `xn--` IDN label (no IP literals).
 */
export function isEmailAddress(address: string): boolean {
  if (address.length > MAX_EMAIL_LENGTH) return false;
  const parts = address.split("@");
  if (parts.length !== 2) return false;
  const [local, domain] = parts;
  return _isDotAtom(local) && _isDomain(domain);
}

function _isDotAtom(local: string): boolean {
  return local.length <= 64 && local.split(".").every((atom) => _ATOM.test(atom));
}

function _isDomain(domain: string): boolean {
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  if (!labels.every((label) => label.length <= 63 && _LABEL.test(label))) return false;
  const last = labels[labels.length - 1];
  return _LETTERS.test(last) || _IDN_LABEL.test(last);
}
