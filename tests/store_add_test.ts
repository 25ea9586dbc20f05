/**
 * `deno task store:add`'s database half (contract, "Going live"): a store added once, the same name and
 * owner twice being one store, and input refused with a sentence per flag. On PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { addStore, checkStoreInput, StoreInputError } from "../local/store_add.ts";
import { testDatabases } from "./support/databases.ts";

function refusal(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof StoreInputError);
    return error.problems;
  }
  assert.fail("the input was accepted");
}

Deno.test("checkStoreInput() refuses a currency that is not an ISO 4217 code in use with two decimals: ABC, XXX, JPY, KWD, a withdrawn HRK", () => {
  for (const currency of ["ABC", "XXX", "XTS", "JPY", "KWD", "HRK", "BOV"]) {
    assert.deepEqual(refusal(() => checkStoreInput({ name: "Shop", ownerEmail: "a@b.co", currency })), [
      `--currency must be an ISO 4217 code in use, in capitals, whose money has two decimals, such as INR or USD: got ${
        JSON.stringify(currency)
      }`,
    ]);
  }
  for (const currency of ["INR", "USD", "EUR", "GBP", "AED", "SGD"]) {
    assert.equal(checkStoreInput({ name: "Shop", ownerEmail: "a@b.co", currency }).currency, currency);
  }
});

Deno.test("checkStoreInput() counts the name's characters as the database does (101 emoji are 101), and refuses a zero-width space in it", () => {
  const emoji = "\u{1F375}".repeat(101);
  assert.equal(checkStoreInput({ name: emoji, ownerEmail: "a@b.co" }).name, emoji);
  assert.deepEqual(refusal(() => checkStoreInput({ name: "\u{1F375}".repeat(201), ownerEmail: "a@b.co" })), [
    "--name must be at most 200 characters (has 201)",
  ]);
  for (const name of ["Chai\u200b & Co.", "Chai & Co.\u200b", "\u2060Chai", "Ch\ufeffai"]) {
    assert.match(
      refusal(() => checkStoreInput({ name, ownerEmail: "a@b.co" }))[0],
      /^--name must not contain invisible characters such as a zero-width space \(found U\+/,
      JSON.stringify(name),
    );
  }
  // a directional mark is refused by the buyer text rule first, in its words
  assert.deepEqual(refusal(() => checkStoreInput({ name: "Chai\u200e", ownerEmail: "a@b.co" })), [
    "--name must not contain directional marks (U+200E, U+200F, U+061C)",
  ]);
  // the joiners scripts and emoji need are no such character
  for (const name of ["\u0915\u094d\u200d\u0937", "\u{1F469}\u200d\u{1F373} Kitchen", "Tea \u2615\ufe0f"]) {
    assert.equal(checkStoreInput({ name, ownerEmail: "a@b.co" }).name, name);
  }
});

Deno.test("checkStoreInput() refuses time zone names that are no location's zone, before the database: localtime, posixrules, Factory, posix/…, EST5EDT", () => {
  for (
    const timeZone of [
      "localtime",
      "posixrules",
      "Factory",
      "posix/Asia/Kolkata",
      "right/UTC",
      "EST5EDT",
      "Etc/GMT+5",
      "IST",
    ]
  ) {
    assert.deepEqual(refusal(() => checkStoreInput({ name: "Shop", ownerEmail: "a@b.co", timeZone })), [
      `--time-zone must be an IANA time zone name of the form Area/Location such as Asia/Kolkata, or UTC: got ${
        JSON.stringify(timeZone)
      }`,
    ]);
  }
});

Deno.test("checkStoreInput() names every flag it refuses: the text rule for the name, the e-mail shape, the currency code", () => {
  assert.deepEqual(
    refusal(() =>
      checkStoreInput({
        name: "Chai\u202e & Co.",
        ownerEmail: "owner at shop",
        currency: "inr",
        timeZone: "Asia/Kolkata",
      })
    ),
    [
      "--name must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)",
      '--owner-email must be an e-mail address such as owner@shop.example: got "owner at shop"',
      '--currency must be an ISO 4217 code in use, in capitals, whose money has two decimals, such as INR or USD: got "inr"',
    ],
  );
  assert.deepEqual(refusal(() => checkStoreInput({ name: " ", ownerEmail: "a@b.co" })), [
    "--name must not be empty",
  ]);
  assert.deepEqual(checkStoreInput({ name: "  Chai & Co. ", ownerEmail: " Owner@Shop.example " }), {
    name: "Chai & Co.",
    ownerEmail: "Owner@Shop.example",
  });
});

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("addStore() twice with the same name and owner is one store: the second run returns the first one's id", async () => {
    const storeName = `Chai & Co. ${crypto.randomUUID().slice(0, 8)}`;
    const first = await addStore(db, { name: storeName, ownerEmail: "owner@chai.example" });
    assert.deepEqual(
      { ...first, id: "" },
      {
        id: "",
        name: storeName,
        ownerEmail: "owner@chai.example",
        currency: "INR",
        timeZone: "Asia/Kolkata",
        isActive: true,
        added: true,
      },
    );
    const again = await addStore(db, {
      name: ` ${storeName}`,
      ownerEmail: "OWNER@chai.example",
      currency: "INR",
    });
    assert.deepEqual([again.id, again.added], [first.id, false]);
    const [{ count }] = await db.query<{ count: number }>(
      "select count(*)::int as count from public.stores where name = $1",
      [storeName],
    );
    assert.equal(count, 1);
    // another owner's store of the same name is another store
    const other = await addStore(db, {
      name: storeName,
      ownerEmail: "other@chai.example",
      timeZone: "Asia/Dubai",
    });
    assert.notEqual(other.id, first.id);
    assert.deepEqual([other.added, other.timeZone], [true, "Asia/Dubai"]);
  });

  test("addStore() run twice at once with the same name and owner makes one store", async () => {
    const input = { name: `Twin ${crypto.randomUUID().slice(0, 8)}`, ownerEmail: "owner@twin.example" };
    const [a, b] = await Promise.all([addStore(db, input), addStore(db, input)]);
    assert.equal(a.id, b.id);
    assert.deepEqual([a.added, b.added].sort(), [false, true]);
  });

  test("addStore() refuses to change an existing store's currency or time zone, and an unknown time zone", async () => {
    const storeName = `Tea Shop ${crypto.randomUUID().slice(0, 8)}`;
    const first = await addStore(db, { name: storeName, ownerEmail: "owner@tea.example" });
    await assert.rejects(
      addStore(db, {
        name: storeName,
        ownerEmail: "owner@tea.example",
        currency: "USD",
        timeZone: "Europe/London",
      }),
      {
        message:
          `the store ${JSON.stringify(storeName)} of owner@tea.example exists (${first.id}) with currency ` +
          "INR and time zone Asia/Kolkata: its orders are priced and dated in them, so this task does not change them",
      },
    );
    await assert.rejects(
      addStore(db, { name: `${storeName} 2`, ownerEmail: "owner@tea.example", timeZone: "Asia/Nowhere" }),
      {
        message:
          '--time-zone must be an IANA time zone name of the form Area/Location such as Asia/Kolkata, or UTC: got "Asia/Nowhere"',
      },
    );
    const [{ count }] = await db.query<{ count: number }>(
      "select count(*)::int as count from public.stores where name like $1",
      [`${storeName}%`],
    );
    assert.equal(count, 1);
  });
}
