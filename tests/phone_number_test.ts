import assert from "node:assert/strict";
import fc from "fast-check";
import {
  normalisePhone,
  PHONE_NUMBER_PATTERN,
  PHONE_SPACES,
} from "../supabase/functions/_shared/orders/phone_number.ts";

Deno.test("normalisePhone() removes spaces (every Unicode space), hyphens, dots and parentheses and keeps E.164", async (t) => {
  const accepted: [string, string][] = [
    ["+91 98765 43210", "+919876543210"],
    ["+91 (98765) 432-10", "+919876543210"],
    ["+1.415.555.0100", "+14155550100"],
    ["+91\u00a098765\u00a043210", "+919876543210"], // no-break spaces, as pasted from contacts
    ["+91\u202f98765\u202f43210", "+919876543210"], // narrow no-break spaces
    ["+91\u3000(98765)\u2009432\u200a10", "+919876543210"],
    ["+4412345", "+4412345"], // 7 digits
    ["+123456789012345", "+123456789012345"], // 15 digits
  ];
  for (const [phone, stored] of accepted) {
    await t.step(phone, () => assert.equal(normalisePhone(phone), stored));
  }
});

Deno.test("normalisePhone() refuses a number without a country code, a country code of 0, or 7 to 15 digits", async (t) => {
  for (
    const phone of [
      "+0000000", // the first digit is a country code, never 0
      "+0919876543210",
      "9876543210",
      "+123456", // 6 digits
      "+1234567890123456", // 16 digits
      "++919876543210",
      "+91 98765 4321x",
      "+91/9876543210",
      "+91\n9876543210", // spaces separate, not other white space
      "+91\t9876543210",
      "+91\u20289876543210", // the line separator (Zl)
      "+91\u200b9876543210", // a zero-width space is no space (Cf)
      "+91\u180e9876543210", // the Mongolian vowel separator, a space before Unicode 6.3
      "",
      "+",
    ]
  ) {
    await t.step(JSON.stringify(phone), () => assert.equal(normalisePhone(phone), null));
  }
});

Deno.test("PHONE_NUMBER_PATTERN (openapi.json's) matches exactly the numbers normalisePhone() accepts", () => {
  const typed = fc.array(
    fc.constantFrom(
      "+",
      "0",
      "1",
      "9",
      "5",
      " ",
      "-",
      ".",
      "(",
      ")",
      "x",
      "\t",
      "\u00a0",
      "\u202f",
      "\u2028",
    ),
    {
      maxLength: 24,
    },
  ).map((parts) => parts.join(""));
  const digits = fc.tuple(fc.constantFrom("", " ", "("), fc.integer({ min: 5, max: 17 }))
    .map(([lead, n]) => `${lead}+${"9".repeat(n)}`);
  fc.assert(
    fc.property(fc.oneof(typed, digits), (phone) => {
      assert.equal(PHONE_NUMBER_PATTERN.test(phone), normalisePhone(phone) !== null, JSON.stringify(phone));
    }),
    { numRuns: 5000 },
  );
});

Deno.test("PHONE_SPACES lists exactly Unicode's spaces (\\p{Zs}), the characters the SQL rule lists too", async () => {
  const listed = new RegExp(`^[${PHONE_SPACES}]$`, "u");
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const character = String.fromCodePoint(code);
    assert.equal(listed.test(character), /^\p{Zs}$/u.test(character), `U+${code.toString(16)}`);
  }
  const sql = await Deno.readTextFile(
    new URL("../supabase/migrations/20261126310000_phone_unicode_spaces.sql", import.meta.url),
  );
  const sqlClass = /regexp_replace\(\s*p_phone,\s*'\[(.*?)\(\)\.-\]'/s.exec(sql)?.[1];
  assert.equal(sqlClass, PHONE_SPACES);
});
