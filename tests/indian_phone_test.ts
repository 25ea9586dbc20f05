/**
 * `indianPhoneNumber()` of the client: an Indian number as a buyer types it, with the `+91` the form shows
 * in front, becomes one create-order takes; anything else is left for create-order to judge.
 */
import assert from "node:assert/strict";
import { indianPhoneNumber } from "../client/mod.ts";
import { normalisePhone } from "../supabase/functions/_shared/orders/phone_number.ts";

Deno.test("indianPhoneNumber() makes +91 98450 12345 of an Indian number however it is typed", async (t) => {
  const typed = [
    "98450 12345",
    "9845012345",
    "+91 98450 12345",
    "098450 12345",
    "91 98450 12345",
    "+91-98450-12345",
    "+91 (0) 98450 12345",
    " 98450-12345 ",
    "(98450) 12345",
  ];
  for (const number of typed) {
    await t.step(JSON.stringify(number), () => {
      assert.equal(indianPhoneNumber(number), "+91 98450 12345");
      assert.equal(normalisePhone(indianPhoneNumber(number)), "+919845012345");
    });
  }
});

Deno.test("indianPhoneNumber() gives a landline with its area code the country code too", () => {
  assert.equal(indianPhoneNumber("022 2345 6789"), "+91 22234 56789");
  assert.equal(normalisePhone(indianPhoneNumber("022 2345 6789")), "+912223456789");
});

Deno.test("indianPhoneNumber() leaves what is no Indian number as typed, for create-order to judge", async (t) => {
  const cases: [string, string, string | null][] = [
    ["another country's number keeps its own code", "+44 20 7946 0958", "+442079460958"],
    ["too short: refused by create-order", "98450 1234", null],
    ["too long: refused by create-order", "98450 123456", null],
    ["letters: refused by create-order", "call me", null],
    ["a 0 in the place of the first digit", "0 00000 0000", null],
  ];
  for (const [label, typed, normalised] of cases) {
    await t.step(label, () => {
      assert.equal(indianPhoneNumber(typed), typed);
      assert.equal(normalisePhone(indianPhoneNumber(typed)), normalised);
    });
  }
});

Deno.test("indianPhoneNumber() takes any Unicode space between the digits, as a number pasted from contacts has", async (t) => {
  const typed = [
    "98450\u00a012345", // no-break space
    "98450\u202f12345", // narrow no-break space
    "+91\u00a098450\u00a012345",
    "\u00a098450\u200912345\u00a0", // thin space, no-break spaces around
    "98450\u300012345", // ideographic space
  ];
  for (const number of typed) {
    await t.step(JSON.stringify(number), () => {
      assert.equal(indianPhoneNumber(number), "+91 98450 12345");
      assert.equal(normalisePhone(indianPhoneNumber(number)), "+919845012345");
    });
  }
});

Deno.test("indianPhoneNumber() reads the international prefix 00 as +: 0091 98450 12345 is +91 98450 12345", async (t) => {
  const cases: [string, string, string][] = [
    ["0091 98450 12345", "+91 98450 12345", "+919845012345"],
    ["009198450\u00a012345", "+91 98450 12345", "+919845012345"],
    ["00 91 98450 12345", "+91 98450 12345", "+919845012345"],
    ["0044 20 7946 0958", "+44 20 7946 0958", "+442079460958"], // another country's, through 00 as well
    ["0044\u00a020\u202f7946\u00a00958", "+44 20 7946 0958", "+442079460958"],
  ];
  for (const [typed, sent, normalised] of cases) {
    await t.step(JSON.stringify(typed), () => {
      assert.equal(indianPhoneNumber(typed), sent);
      assert.equal(normalisePhone(indianPhoneNumber(typed)), normalised);
    });
  }
});
