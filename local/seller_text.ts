/**
 * The rule for the names a seller gives (a store's, a product's, a variant's), as store:add and
 * catalogue:import check them. It is the contract's text rule for buyer text (text_rules.ts: no control or
 * bidirectional characters, something visible, NFC, lengths in characters as PostgreSQL's `length(name)`
 * counts them: 101 emoji are 101 characters), with one difference: no invisible character at all, but the
 * joiners and selectors that scripts and emoji need (U+200C, U+200D, variation selectors, emoji tags). A name
 * is shown to buyers and matched by store:add: "Chai" with a zero-width space after it looks like "Chai" and
 * is another store. The directional marks and the noncharacters the contract also refuses in buyer text are
 * refused here too. Pure.
 */
import {
  characterCount,
  checkFreeText,
  type FreeTextResult,
} from "../supabase/functions/_shared/orders/text_rules.ts";

// every character that draws nothing: default-ignorables (zero-width space, word joiner, BOM, Hangul
// fillers, the directional marks), format characters, and U+2800 BRAILLE PATTERN BLANK
const _INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]/u;
// the invisible characters that writing needs: ZWNJ and ZWJ (Indic scripts, emoji sequences), variation
// selectors (emoji or text presentation), tag characters (subdivision flags)
const _NEEDED = /[\u200c\u200d\ufe00-\ufe0f\u{e0020}-\u{e007f}\u{e0100}-\u{e01ef}]/u;
// the noncharacters U+FDD0-U+FDEF and U+FFFE/U+FFFF, and the specials U+FFF0-U+FFFD
const _NONCHARACTER = /[\ufdd0-\ufdef\ufff0-\uffff]/u;

/** `U+200B`: how a problem names a character. */
function _codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The name rule for `raw`, at most `maxLength` characters (code points, after trimming and NFC). */
export function checkSellerName(raw: string, maxLength: number): FreeTextResult {
  const result = checkFreeText(raw, Number.MAX_SAFE_INTEGER);
  if (!result.ok) return result;
  const characters = [...result.text];
  const invisible = characters.find((char) => _INVISIBLE.test(char) && !_NEEDED.test(char));
  if (invisible) {
    return {
      ok: false,
      problem: `must not contain invisible characters such as a zero-width space (found ${
        _codePoint(invisible)
      })`,
    };
  }
  const noncharacter = characters.find((char) => _NONCHARACTER.test(char));
  if (noncharacter) {
    return {
      ok: false,
      problem: `must not contain noncharacters or specials (found ${_codePoint(noncharacter)})`,
    };
  }
  // the buyer rule's count, checked here so that the problem says how many characters the name has
  const count = characterCount(result.text);
  if (count > maxLength) {
    return { ok: false, problem: `must be at most ${maxLength} characters (has ${count})` };
  }
  return result;
}
