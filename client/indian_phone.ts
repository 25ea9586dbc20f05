/**
 * `indianPhoneNumber(typed)`: a phone number as an Indian buyer types it, made one that create-order takes
 * (`+`, the country code, the number). A form shows `+91` in front of its field; the buyer types the
 * number as they know it, and the page sends this.
 */
import { PHONE_SPACES } from "../supabase/functions/_shared/orders/phone_number.ts";

// what people put between digits: any space of Unicode (a number pasted from contacts carries no-break
// spaces), hyphens, dots and parentheses, as the function's rule allows
const _SEPARATORS = new RegExp(`[${PHONE_SPACES}\\-.()]`, "gu");
const _SPACES = new RegExp(`[${PHONE_SPACES}]+`, "gu");
// 00 is how a call leaves India (and most countries): 0091 98450 12345 is +91 98450 12345
const _INTERNATIONAL_PREFIX = new RegExp(`^0[${PHONE_SPACES}\\-.()]*0(?=[${PHONE_SPACES}\\-.()]*[1-9])`, "u");

/**
 * `+91 98450 12345` for a ten-digit Indian number typed as `98450 12345`, `9845012345`, `098450 12345`
 * (the trunk 0), `91 98450 12345`, `+91 98450 12345`, `0091 98450 12345` (India's international prefix) or
 * `+91 (0) 98450 12345`, separators anywhere, any space of Unicode among them (a landline with its area
 * code, `022 2345 6789`, alike). Anything else, a number of another country (`+44 20 7946 0958`) included, is
 * returned as typed, trimmed, its leading `00` made `+` (`0044 20 7946 0958` → `+44 20 7946 0958`) and each
 * run of spaces one plain space: create-order judges it (400 VALIDATION_FAILED at `buyerPhone` when it is no
 * number with a country code).
 */
export function indianPhoneNumber(typed: string): string {
  const trimmed = typed.trim().replace(_INTERNATIONAL_PREFIX, "+");
  const compact = trimmed.replace(_SEPARATORS, "");
  const national = /^(?:\+?91)?0?([1-9][0-9]{9})$/.exec(compact)?.[1];
  return national ? `+91 ${national.slice(0, 5)} ${national.slice(5)}` : trimmed.replace(_SPACES, " ");
}
