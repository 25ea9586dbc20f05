/**
 * The one rule for buyer free text (names, address lines, city, state, postal code): a value is stored
 * trimmed and NFC-normalised, and refused when it holds a control character or line break, a
 * bidirectional control or directional mark, a noncharacter or special (U+FDD0-U+FDEF, U+FFF0-U+FFFF), or
 * nothing visible. Buyer text then stays one plain line that cannot reorder what follows it or pass for
 * blank, so it can never imitate a section of our e-mails. Lengths count characters (code points), as the
 * database's `length()` and openapi.json's `maxLength` do. The database applies the same rule to what
 * create_order is given (order_text_rule: 20261126000700_order_text_rule.sql, its lengths from
 * 20261126300000_text_lengths_in_characters.sql). Pure.
 */

// C0 (with TAB, LF, CR), DEL and C1, and the two Unicode line and paragraph separators
// deno-lint-ignore no-control-regex
const _CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI, RLI, FSI, PDI)
const _BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
// the directional marks LRM, RLM and ALM: invisible, and they still reorder what surrounds them
const _DIRECTIONAL_MARK = /[\u200e\u200f\u061c]/;
// the noncharacters U+FDD0-U+FDEF and U+FFFE/U+FFFF, and the specials U+FFF0-U+FFFD (interlinear
// annotation controls that hide text, the object replacement character, the replacement character)
const _NONCHARACTER = /[\ufdd0-\ufdef\ufff0-\uffff]/;
// what draws nothing: white space, default-ignorable characters (zero-width, U+3164 and the other Hangul
// fillers, variation selectors), format characters, combining marks on their own, and U+2800 BRAILLE BLANK
const _INVISIBLE = /[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\u2800]/gu;

/** A value accepted by the rule, or the reason it was refused (a phrase that follows the field's name). */
export type FreeTextResult<T = string> = { ok: true; text: T } | { ok: false; problem: string };

/**
 * How many characters `text` holds, counted as PostgreSQL's `length()` and JSON Schema's `maxLength` count
 * them: code points, so that a character past U+FFFF (an emoji) is one, not JavaScript's two UTF-16 units.
 */
export function characterCount(text: string): number {
  let count = text.length;
  // each high surrogate followed by a low one is one character of two units
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/**
 * Applies the free-text rule to `raw` for a field of at most `maxLength` characters (code points, as the
 * database and openapi.json count them, counted after trimming and normalisation).
 */
export function checkFreeText(raw: string, maxLength: number): FreeTextResult {
  const characters = _characterProblem(raw);
  if (characters) return { ok: false, problem: characters };
  const text = raw.trim().normalize("NFC");
  if (text.length === 0) return { ok: false, problem: "must not be empty" };
  if (characterCount(text) > maxLength) {
    return { ok: false, problem: `must be at most ${maxLength} characters` };
  }
  if (text.replace(_INVISIBLE, "").length === 0) {
    return { ok: false, problem: "must contain a visible character" };
  }
  return { ok: true, text };
}

/**
 * The rule for an optional field: a value of only spaces is none (null); anything else, control
 * characters among spaces included, is checked as {@linkcode checkFreeText} checks it.
 */
export function checkOptionalFreeText(raw: string, maxLength: number): FreeTextResult<string | null> {
  if (raw.trim() === "" && !_characterProblem(raw)) return { ok: true, text: null };
  return checkFreeText(raw, maxLength);
}

function _characterProblem(raw: string): string | null {
  // PostgreSQL text and jsonb hold neither NUL (a control character) nor an unpaired surrogate
  if (!raw.isWellFormed()) return "must not contain unpaired surrogate characters";
  if (_CONTROL.test(raw)) return "must not contain control characters or line breaks";
  if (_BIDI_CONTROL.test(raw)) {
    return "must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)";
  }
  if (_DIRECTIONAL_MARK.test(raw)) return "must not contain directional marks (U+200E, U+200F, U+061C)";
  if (_NONCHARACTER.test(raw)) {
    return "must not contain noncharacters or specials (U+FDD0-U+FDEF, U+FFF0-U+FFFF)";
  }
  return null;
}

/**
 * The rule for a link field: an absolute http(s) URL with a host, kept as the parsed URL's serialisation
 * (no raw CR, LF or space survives), at most `maxLength` characters counted there.
 */
export function checkHttpUrl(raw: string, maxLength: number): FreeTextResult {
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.hostname.length === 0) {
    return { ok: false, problem: "must be an absolute http or https URL" };
  }
  // https://bank.example@evil.example/ reads as the bank's link and leads elsewhere
  if (url.username || url.password) return { ok: false, problem: "must not carry a user name or password" };
  if (url.href.length > maxLength) return { ok: false, problem: `must be at most ${maxLength} characters` };
  return { ok: true, text: url.href };
}
