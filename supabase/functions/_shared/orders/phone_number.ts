/** The contract's buyer phone rule: a country code is required, stored in E.164 form. Pure. */

// what people put between digits: spaces, hyphens, dots and parentheses (plain spaces only: a tab, a line
// break or another kind of space is no separator)
const _SEPARATORS = /[ \-.()]/g;
// +, then 7 to 15 digits, the first (the country code's) not 0
const _E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * The same rule on the number as typed, for the API description (JSON Schema's `pattern`): separators
 * anywhere, one +, then 7 to 15 digits, the first not 0. tests/phone_number_test.ts holds it to
 * {@linkcode normalisePhone}.
 */
export const PHONE_NUMBER_PATTERN = /^[ \-.()]*\+[ \-.()]*[1-9](?:[ \-.()]*[0-9]){6,14}[ \-.()]*$/u;

/** `phone` in E.164 form (`+919876543210`) once separators are removed, or null when it is not one. */
export function normalisePhone(phone: string): string | null {
  const compact = phone.replace(_SEPARATORS, "");
  return _E164.test(compact) ? compact : null;
}
