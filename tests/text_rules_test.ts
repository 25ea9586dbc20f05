import assert from "node:assert/strict";
import {
  characterCount,
  checkFreeText,
  checkOptionalFreeText,
} from "../supabase/functions/_shared/orders/text_rules.ts";

/** The class of character each refused value shows, and the values. */
const REFUSED: [string, string[]][] = [
  ["C0 controls, CR, LF and TAB", [
    "Asha\u0000",
    "Asha\u0007Rao",
    "Asha\u001b[2J",
    "Flat 4\n\nPAYMENT",
    "A\rB",
    "A\tB",
  ]],
  ["DEL and C1 controls", ["Asha\u007f", "Asha\u0085Rao", "A\u009bB"]],
  ["line and paragraph separators", ["Flat 4\u2028PAYMENT", "A\u2029B"]],
  ["bidi embeddings and overrides", ["\u202eevil", "A\u202aB", "A\u202bB", "A\u202cB", "A\u202dB"]],
  ["bidi isolates", ["A\u2066B", "A\u2067B", "A\u2068B", "A\u2069B"]],
  ["directional marks", ["A\u200eB", "A\u200fB", "\u061cA"]],
  ["noncharacters and specials", [
    "A\ufdd0B",
    "A\ufdefB",
    "A\ufff0B",
    "A\ufff9B",
    "A\ufffbB",
    "A\ufffcB",
    "A\ufffdB",
    "A\ufffeB",
    "A\uffffB",
  ]],
  ["nothing visible", [
    "   ",
    "\u200b",
    "\u200b\u200c\u200d\u2060",
    "\u3164",
    "\u3164\u3164",
    "\u2800",
    "\ufeff",
    "\u00ad",
    "\u0301\u0301",
    "\u115f\u1160",
    "\uffa0",
    "\u00a0\u2003",
  ]],
  ["unpaired surrogates", ["\ud800", "x\udfffy"]],
];

Deno.test("checkFreeText() refuses control characters, bidi controls, directional marks, noncharacters and specials, and values with nothing visible", async (t) => {
  for (const [kind, values] of REFUSED) {
    await t.step(kind, () => {
      for (const value of values) {
        const result = checkFreeText(value, 200);
        assert.equal(result.ok, false, `${JSON.stringify(value)} was accepted`);
      }
    });
  }
});

Deno.test("checkFreeText() accepts ordinary text of any script, trimmed and NFC-normalised", async (t) => {
  const accepted: [string, string][] = [
    ["  Asha Rao  ", "Asha Rao"],
    ["Jose\u0301", "Jos\u00e9"], // NFD in, NFC stored
    ["Zoe\u0308 Mu\u0308ller", "Zo\u00eb M\u00fcller"],
    ["\u0906\u0936\u093e \u0930\u093e\u0935", "\u0906\u0936\u093e \u0930\u093e\u0935"], // Devanagari with its marks
    ["\u05e9\u05dc\u05d5\u05dd", "\u05e9\u05dc\u05d5\u05dd"], // right-to-left text without controls
    ["\ud55c\uad6d", "\ud55c\uad6d"],
    ["O'Brien & Sons <Ltd>", "O'Brien & Sons <Ltd>"], // escaping is the e-mail's job
    ["\u200bA", "\u200bA"], // something visible besides
    ["\u{1f600}", "\u{1f600}"],
  ];
  for (const [value, stored] of accepted) {
    await t.step(
      JSON.stringify(value),
      () => assert.deepEqual(checkFreeText(value, 200), { ok: true, text: stored }),
    );
  }
});

Deno.test("checkFreeText() counts the length after trimming and normalisation", () => {
  assert.deepEqual(checkFreeText(` ${"a".repeat(20)} `, 20), { ok: true, text: "a".repeat(20) });
  assert.equal(checkFreeText("a".repeat(21), 20).ok, false);
  // 20 decomposed characters are 40 code units, 20 once composed
  assert.equal(checkFreeText("e\u0301".repeat(20), 20).ok, true);
  assert.equal(checkFreeText("", 20).ok, false);
});

Deno.test("checkFreeText() counts characters past U+FFFF once, as PostgreSQL's length() and JSON Schema's maxLength do", () => {
  const emoji = "\u{1f600}"; // two UTF-16 units, one character
  assert.deepEqual(checkFreeText(emoji.repeat(200), 200), { ok: true, text: emoji.repeat(200) });
  assert.equal(checkFreeText(emoji.repeat(201), 200).ok, false);
  assert.equal(checkFreeText(`${"a".repeat(199)}${emoji}`, 200).ok, true);
  assert.equal(checkFreeText(`${"a".repeat(200)}${emoji}`, 200).ok, false);
  assert.equal(checkOptionalFreeText(emoji.repeat(20), 20).ok, true);
  assert.equal(checkOptionalFreeText(emoji.repeat(21), 20).ok, false);
});

Deno.test("characterCount() counts code points: a surrogate pair is one, BMP characters one each", () => {
  assert.equal(characterCount(""), 0);
  assert.equal(characterCount("Asha"), 4);
  assert.equal(characterCount("\u{1f600}\u{1f600}"), 2);
  assert.equal(characterCount("\u{1f1ee}\u{1f1f3}"), 2); // a flag: two regional indicators
  assert.equal(characterCount("e\u0301"), 2); // a combining mark is a character of its own
  assert.equal(characterCount("\uffff\u{10000}\u{10ffff}"), 3);
  for (const text of ["a\u{1f600}b", "\u{1d7ce}".repeat(7), "\u0906\u0936\u093e"]) {
    assert.equal(characterCount(text), [...text].length, JSON.stringify(text));
  }
});

Deno.test("checkOptionalFreeText() takes only spaces as none, and still refuses control characters among them", () => {
  assert.deepEqual(checkOptionalFreeText("", 200), { ok: true, text: null });
  assert.deepEqual(checkOptionalFreeText("  \u00a0 ", 200), { ok: true, text: null });
  assert.equal(checkOptionalFreeText("\t", 200).ok, false);
  assert.equal(checkOptionalFreeText(" \n ", 200).ok, false);
  assert.equal(checkOptionalFreeText("\u200b", 200).ok, false);
  assert.deepEqual(checkOptionalFreeText(" Flat 4B ", 200), { ok: true, text: "Flat 4B" });
});
