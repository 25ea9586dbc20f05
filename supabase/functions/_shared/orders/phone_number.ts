/** The contract's buyer phone rule: a country code is required, stored in E.164 form. Pure. */

/**
 * Every space of Unicode (general category Zs: the space, the no-break spaces U+00A0 and U+202F that a
 * number pasted from contacts carries, the fixed-width spaces, the ideographic space), listed rather than
 * written `\p{Zs}` so that the SQL rule (`public.normalise_phone`) names the very same characters. A tab, a
 * line break or a line separator is no space here. tests/phone_number_test.ts holds the list to `\p{Zs}`.
 */
export const PHONE_SPACES = "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000";

// what people put between digits: spaces, hyphens, dots and parentheses
const _SEPARATOR = `[${PHONE_SPACES}\\-.()]`;
const _SEPARATORS = new RegExp(_SEPARATOR, "gu");
// +, then 7 to 15 digits, the first (the country code's) not 0
const _E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * The same rule on the number as typed, for the API description (JSON Schema's `pattern`): separators
 * anywhere, one +, then 7 to 15 digits, the first not 0. tests/phone_number_test.ts holds it to
 * {@linkcode normalisePhone}.
 */
export const PHONE_NUMBER_PATTERN = new RegExp(
  `^${_SEPARATOR}*\\+${_SEPARATOR}*[1-9](?:${_SEPARATOR}*[0-9]){6,14}${_SEPARATOR}*$`,
  "u",
);

/** `phone` in E.164 form (`+919876543210`) once separators are removed, or null when it is not one. */
export function normalisePhone(phone: string): string | null {
  const compact = phone.replace(_SEPARATORS, "");
  return _E164.test(compact) ? compact : null;
}
