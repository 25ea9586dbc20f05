import assert from "node:assert/strict";
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
