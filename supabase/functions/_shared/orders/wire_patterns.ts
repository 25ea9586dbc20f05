/**
 * Rules of the request fields written as ECMA-262 patterns (read with the `u` flag, as JSON Schema's
 * `pattern` is), for the API description: a generator or validator that knows only openapi.json then
 * produces and accepts what the functions accept. The functions themselves keep enforcing the rule's own
 * function, whose messages name each problem; tests/wire_patterns_test.ts holds every pattern to that
 * function (the text rule code point by code point). Pure.
 */
import { ISO_3166_ALPHA2 } from "./iso_countries.ts";

// what text_rules.ts refuses anywhere in free text: C0 (TAB, LF, CR included), DEL, C1, the line and
// paragraph separators, bidirectional embeddings, overrides and isolates, and unpaired surrogates
const _REFUSED =
  "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\u061c\\u200e\\u200f\\ufdd0-\\ufdef\\ufff0-\\uffff\\p{Cs}";
// what draws nothing (text_rules.ts's _INVISIBLE): a value of only these is refused
const _INVISIBLE = "\\p{White_Space}\\p{Default_Ignorable_Code_Point}\\p{Cf}\\p{M}\\u2800";

/**
 * The free-text rule (`checkFreeText`) but for its lengths: no refused character, and at least one
 * character that draws something. Lengths go beside it as `minLength` / `maxLength`.
 */
export const FREE_TEXT_PATTERN = `^[^${_REFUSED}]*[^${_REFUSED}${_INVISIBLE}][^${_REFUSED}]*$`;

// RFC 3986's pchar: unreserved, sub-delims, ":" and "@", or a percent-encoded octet, which WHATWG URL
// serialises unchanged in a path; in a query it encodes "'", so a query goes without it
const _PCHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})";
const _QCHAR = "(?:[A-Za-z0-9\\-._~!$&()*+,;=:@/?]|%[0-9A-Fa-f]{2})";
// a DNS-like label; never `xn--` (WHATWG URL refuses a host whose punycode does not decode)
const _LABEL = "(?![Xx][Nn]--)[A-Za-z0-9-]+";

/**
 * Links (`checkHttpUrl`), narrowed to what every URL parser reads alike: http or https, a host name whose
 * last label starts with a letter (so never an IPv4 address to validate), an optional port below 10000,
 * then a path, query and fragment of RFC 3986 characters. No user name or password (no `@` before the
 * path). Every value it matches is accepted, as its own serialisation (at most one character longer: the
 * `/` of an empty path).
 */
export const HTTP_URL_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?://" +
  `(?:${_LABEL}\\.)*(?![Xx][Nn]--)[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?` +
  `(?:/(?:${_PCHAR}|/)*)?(?:\\?${_QCHAR}*)?(?:#${_QCHAR}*)?$`;

/**
 * The free-text rule as JSON Schema keywords, for a field of at most `max` characters: JSON Schema counts
 * code points of the value as sent, the function code points too, once trimmed and NFC-normalised (the
 * same for text in NFC without spaces around it).
 */
export const freeTextKeywords = (max: number) => ({
  pattern: FREE_TEXT_PATTERN,
  minLength: 1,
  maxLength: max,
});

/**
 * The link rule as JSON Schema keywords, for a link of at most `max` characters once serialised: one less
 * as sent, for the `/` a URL without a path gains.
 */
export const httpUrlKeywords = (max: number) => ({
  format: "uri",
  pattern: HTTP_URL_PATTERN,
  maxLength: max - 1,
});

/** An assigned ISO 3166-1 alpha-2 code in any letter case: `^(?:[Aa][DdEe…]|…)$`, from the one list. */
export const COUNTRY_CODE_PATTERN: RegExp = _countryCodePattern(ISO_3166_ALPHA2);

function _countryCodePattern(codes: Iterable<string>): RegExp {
  const byFirst = new Map<string, string[]>();
  for (const code of [...codes].sort()) byFirst.set(code[0], [...(byFirst.get(code[0]) ?? []), code[1]]);
  const both = (letter: string) => letter + letter.toLowerCase();
  const groups = [...byFirst].map(([first, seconds]) => `[${both(first)}][${seconds.map(both).join("")}]`);
  return new RegExp(`^(?:${groups.join("|")})$`, "u");
}
