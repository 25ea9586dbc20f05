import assert from "node:assert/strict";
import fc from "fast-check";
import { isEmailAddress } from "../supabase/functions/_shared/orders/email_address.ts";
import { testDatabases } from "./support/databases.ts";
import { ACCEPTED_EMAILS as ACCEPTED, REFUSED_EMAILS as REFUSED } from "./support/email_examples.ts";

Deno.test("isEmailAddress() accepts the contract's shape", async (t) => {
  for (const address of ACCEPTED) {
    await t.step(address.length > 60 ? `${address.slice(0, 40)}... (${address.length})` : address, () => {
      assert.equal(isEmailAddress(address), true);
    });
  }
});

Deno.test("isEmailAddress() refuses anything else", async (t) => {
  for (const [title, address] of REFUSED) {
    await t.step(title, () => assert.equal(isEmailAddress(address), false, address));
  }
});

/** The contract's e-mail rule read part by part, as the pattern's yardstick. */
function _byParts(address: string): boolean {
  const parts = address.split("@");
  if (address.length > 254 || parts.length !== 2) return false;
  const [local, domain] = parts;
  const labels = domain.split(".");
  const last = labels[labels.length - 1];
  return local.length <= 64 &&
    local.split(".").every((atom) => /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/.test(atom)) &&
    labels.length >= 2 &&
    labels.every((label) => label.length <= 63 && /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label)) &&
    (/^[A-Za-z]+$/.test(last) || /^xn--[A-Za-z0-9-]*[A-Za-z0-9]$/i.test(last));
}

Deno.test("isEmailAddress() (one pattern, openapi.json's) agrees with the rule read part by part", () => {
  const piece = fc.oneof(
    fc.constantFrom("a", "Z", "9", "-", ".", "@", "+", "_", "xn--", "XN--", "'", " ", "é", "[", '"'),
    fc.constantFrom(64, 63, 62, 1).map((n) => "a".repeat(n)),
  );
  const near = fc.tuple(fc.array(piece, { maxLength: 6 }), fc.array(piece, { maxLength: 6 }))
    .map(([local, domain]) => `${local.join("")}@${domain.join("")}`);
  fc.assert(
    fc.property(fc.oneof(near, fc.array(piece, { maxLength: 10 }).map((p) => p.join(""))), (address) => {
      assert.equal(isEmailAddress(address), _byParts(address), JSON.stringify(address));
    }),
    { numRuns: 5000 },
  );
});

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] is_email_address() in SQL gives isEmailAddress()'s answer for every example`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const examples = [...ACCEPTED, ...REFUSED.map(([, address]) => address)];
      const rows = await db.query<{ address: string; ok: boolean }>(
        "select a.address, public.is_email_address(a.address) as ok from unnest($1::text[]) as a(address)",
        [examples],
      );
      assert.deepEqual(
        rows.filter((row) => row.ok !== isEmailAddress(row.address)).map((row) => row.address),
        [],
      );
      assert.equal(rows.filter((row) => row.ok).length, ACCEPTED.length);
    },
  });
}
