/**
 * The patterns openapi.json carries say what the functions' own rules say: the free-text pattern refuses
 * and accepts every code point as checkFreeText does, every link it matches is one checkHttpUrl keeps,
 * the country pattern is the ISO list in any letter case, and Ajv (JSON Schema's reader of patterns, with
 * the `u` flag) compiles and applies them.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { documentAjv } from "./support/document_ajv.ts";
import { ISO_3166_ALPHA2 } from "../supabase/functions/_shared/orders/iso_countries.ts";
import { checkFreeText, checkHttpUrl } from "../supabase/functions/_shared/orders/text_rules.ts";
import {
  COUNTRY_CODE_PATTERN,
  FREE_TEXT_PATTERN,
  HTTP_URL_PATTERN,
} from "../supabase/functions/_shared/orders/wire_patterns.ts";
import { patternArbitrary } from "./support/pattern_arbitrary.ts";

const FREE_TEXT = new RegExp(FREE_TEXT_PATTERN, "u");
const HTTP_URL = new RegExp(HTTP_URL_PATTERN, "u");

const _hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** Code points (as ranges) where `a` and `b` disagree. */
function _disagreements(a: (s: string) => boolean, b: (s: string) => boolean, wrap: (c: string) => string) {
  const ranges: string[] = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const differs = cp < 0x110000 &&
      (() => {
        // a lone surrogate is a string of its own: fromCodePoint would pair nothing
        const char = cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
        return a(wrap(char)) !== b(wrap(char));
      })();
    if (differs && start < 0) start = cp;
    if (!differs && start >= 0) {
      ranges.push(start === cp - 1 ? _hex(start) : `${_hex(start)}-${_hex(cp - 1)}`);
      start = -1;
    }
  }
  return ranges;
}

Deno.test("FREE_TEXT_PATTERN refuses, between letters, exactly the code points checkFreeText refuses", () => {
  const accepted = (text: string) => checkFreeText(text, 10).ok;
  assert.deepEqual(_disagreements(accepted, (text) => FREE_TEXT.test(text), (c) => `a${c}b`), []);
});

Deno.test("FREE_TEXT_PATTERN refuses, alone, exactly the code points checkFreeText finds invisible or refuses", () => {
  const accepted = (text: string) => checkFreeText(text, 10).ok;
  assert.deepEqual(_disagreements(accepted, (text) => FREE_TEXT.test(text), (c) => c), []);
});

Deno.test("FREE_TEXT_PATTERN and checkFreeText agree on generated text within its length", () => {
  const pool = fc.constantFrom(
    "a",
    "Z",
    " ",
    "\u00a0",
    "\u200b",
    "\u200d",
    "\u0301",
    "\u2800",
    "\u3164",
    "\u202e",
    "\u2066",
    "\t",
    "\n",
    "\u0085",
    "\ud800",
    "\ud83d\ude00",
    "अ",
    "\u093f",
  );
  fc.assert(
    fc.property(fc.array(pool, { maxLength: 8 }).map((parts) => parts.join("")), (text) => {
      assert.equal(FREE_TEXT.test(text), checkFreeText(text, 100).ok, JSON.stringify(text));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("HTTP_URL_PATTERN matches only links checkHttpUrl keeps, serialised at most one character longer", () => {
  fc.assert(
    fc.property(patternArbitrary(HTTP_URL_PATTERN), (link) => {
      const checked = checkHttpUrl(link, 10_000);
      assert.ok(checked.ok, `${link}: ${!checked.ok && checked.problem}`);
      assert.ok(checked.text.length <= link.length + 1, `${link} became ${checked.text}`);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("HTTP_URL_PATTERN takes the links a storefront sends and refuses what checkHttpUrl refuses", () => {
  for (
    const link of [
      "https://bank.example/proof/123",
      "http://127-0-0-1.example:8080/upi?ref=UPI%2F123&amount=349.00#top",
      "https://tracking.carrier.example/track?awb=EE123456789IN",
      "HTTPS://Bank.Example",
    ]
  ) {
    assert.ok(HTTP_URL.test(link), link);
  }
  for (
    const link of [
      "ftp://bank.example/proof",
      "https://user:pass@bank.example/",
      "https://bank.example@evil.example/",
      "javascript:alert(1)",
      "https://1.2.3.999/",
      "https://xn--zz.example/",
      "/relative/path",
      "https://bank.example/a b",
      "https:///path",
    ]
  ) {
    assert.equal(HTTP_URL.test(link), false, link);
  }
});

Deno.test("COUNTRY_CODE_PATTERN is the ISO 3166-1 alpha-2 list in any letter case, and nothing else", () => {
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (const first of letters) {
    for (const second of letters) {
      const code = first + second;
      for (const written of [code, code.toLowerCase(), first + second.toLowerCase()]) {
        assert.equal(COUNTRY_CODE_PATTERN.test(written), ISO_3166_ALPHA2.has(code), written);
      }
    }
  }
  for (const lookalike of ["\u0131N", "\u017fe", "ｉｎ", "IND", "I", "", " IN"]) {
    assert.equal(COUNTRY_CODE_PATTERN.test(lookalike), false, lookalike);
  }
});

Deno.test("Ajv compiles the patterns with Unicode property escapes and answers as the functions do", () => {
  const ajv = documentAjv({ strict: true });
  const text = ajv.compile({ type: "string", pattern: FREE_TEXT_PATTERN });
  const link = ajv.compile({ type: "string", pattern: HTTP_URL_PATTERN });
  for (const value of ["Asha Rao", "12, MG Road", "आशा", " x ", "\u200bAsha"]) {
    assert.equal(text(value), true, JSON.stringify(value));
  }
  for (const value of ["", "   ", "\u200b", "\u0301", "Asha\u202eRao", "Asha\nRao", "\ud800"]) {
    assert.equal(text(value), false, JSON.stringify(value));
  }
  assert.equal(link("https://bank.example/proof/1"), true);
  assert.equal(link("https://bank.example@evil.example/"), false);
});
