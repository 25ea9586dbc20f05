import assert from "node:assert/strict";
import fc from "fast-check";
import { normalisePhone, PHONE_NUMBER_PATTERN } from "../supabase/functions/_shared/orders/phone_number.ts";

Deno.test("normalisePhone() removes spaces, hyphens, dots and parentheses and keeps E.164", async (t) => {
  const accepted: [string, string][] = [
    ["+91 98765 43210", "+919876543210"],
    ["+91 (98765) 432-10", "+919876543210"],
    ["+1.415.555.0100", "+14155550100"],
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
      "+91\n9876543210", // only plain spaces separate
      "+91\t9876543210",
      "+91\u00a09876543210",
      "+91\u20289876543210",
      "",
      "+",
    ]
  ) {
    await t.step(JSON.stringify(phone), () => assert.equal(normalisePhone(phone), null));
  }
});

Deno.test("PHONE_NUMBER_PATTERN (openapi.json's) matches exactly the numbers normalisePhone() accepts", () => {
  const typed = fc.array(fc.constantFrom("+", "0", "1", "9", "5", " ", "-", ".", "(", ")", "x", "\t"), {
    maxLength: 24,
  }).map((parts) => parts.join(""));
  const digits = fc.tuple(fc.constantFrom("", " ", "("), fc.integer({ min: 5, max: 17 }))
    .map(([lead, n]) => `${lead}+${"9".repeat(n)}`);
  fc.assert(
    fc.property(fc.oneof(typed, digits), (phone) => {
      assert.equal(PHONE_NUMBER_PATTERN.test(phone), normalisePhone(phone) !== null, JSON.stringify(phone));
    }),
    { numRuns: 5000 },
  );
});
