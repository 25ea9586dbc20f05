/**
 * A store's currency is one of local/currencies.ts's codes in the database too (is_store_currency, by the
 * migration …_store_currencies.sql), whoever writes the row: store:add, the service key, Studio. The
 * database's list is compared with the TypeScript one over every three-letter code, so the two cannot
 * drift; the migration stops, naming the store, where an existing store is in a currency outside it.
 */
import assert from "node:assert/strict";
import { STORE_CURRENCIES } from "../local/currencies.ts";
import { createTestStore } from "./support/catalogue.ts";
import { pgliteBefore, testDatabases } from "./support/databases.ts";

const MIGRATION = "20261126300100";

/** Every code of three capital letters, AAA to ZZZ. */
function _everyCode(): string[] {
  const letters = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];
  return letters.flatMap((a) => letters.flatMap((b) => letters.map((c) => a + b + c)));
}

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] is_store_currency() holds exactly the codes of local/currencies.ts, over every three-letter code`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const [{ codes }] = await db.query<{ codes: string[] }>(
        "select coalesce(array_agg(c order by c), '{}') as codes from unnest($1::text[]) c where public.is_store_currency(c)",
        [_everyCode()],
      );
      assert.deepEqual(codes, [...STORE_CURRENCIES].sort());
    },
  });

  Deno.test({
    name:
      `[${name}] stores.currency refuses, for the service role as for the tables' owner, a code outside local/currencies.ts: ABC, XXX, JPY, KWD, HRK, inr`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const store = await createTestStore(db);
      for (const currency of ["ABC", "XXX", "XTS", "JPY", "KWD", "HRK", "BOV", "inr", "IN", ""]) {
        await t.step(`${JSON.stringify(currency)}: refused`, async () => {
          const outcome = (promise: Promise<unknown>) =>
            promise.then(() => "stored", (error: { code?: string }) => error.code);
          assert.equal(
            await outcome(
              db.query("update public.stores set currency = $2 where id = $1", [store.storeId, currency]),
            ),
            "23514",
          );
          const inserted = db.asRole("service_role", (s) =>
            s.query(
              "insert into public.stores (name, owner_email, currency) values ('Shop', 'a@b.co', $1)",
              [currency],
            ));
          assert.equal(await outcome(inserted), "23514");
        });
      }
      for (const currency of ["INR", "USD", "EUR", "AED", "ZWG"]) {
        await t.step(`${currency}: accepted`, async () => {
          await db.asRole(
            "service_role",
            (s) => s.query("update public.stores set currency = $2 where id = $1", [store.storeId, currency]),
          );
        });
      }
    },
  });
}

Deno.test({
  name:
    "[pglite] the store-currency migration stops, naming each store and its code, where a store's currency is outside the list; once corrected it applies",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { db, remaining: [migration] } = await pgliteBefore(MIGRATION);
    try {
      const abc = await createTestStore(db, { currency: "ABC" });
      const yen = await createTestStore(db, { currency: "JPY" });
      await createTestStore(db, { currency: "USD" });
      const [first, second] = [abc.storeId, yen.storeId].sort();
      const code = (id: string) => id === abc.storeId ? "ABC" : "JPY";
      await assert.rejects(
        db.execTransaction(migration.sql),
        (error: Error & { hint?: string }) => {
          assert.equal(
            error.message,
            "stores with a currency that is no ISO 4217 code in use with two decimals (local/currencies.ts): " +
              `${first} (${code(first)}), ${second} (${code(second)})`,
          );
          assert.match(error.hint ?? "", /^update public\.stores set currency = /);
          return true;
        },
      );
      // nothing of it stayed: the old check still takes ABC
      const [{ fn }] = await db.query<{ fn: string | null }>(
        "select to_regprocedure('public.is_store_currency(text)')::text as fn",
      );
      assert.equal(fn, null);
      await db.query("update public.stores set currency = 'INR' where id = any($1)", [[
        abc.storeId,
        yen.storeId,
      ]]);
      await db.execTransaction(migration.sql);
      const [check] = await db.query<{ definition: string; convalidated: boolean }>(
        `select pg_get_constraintdef(oid) as definition, convalidated from pg_constraint
         where conname = 'stores_currency_check'`,
      );
      assert.match(check.definition, /^CHECK \((public\.)?is_store_currency\(currency\)\)$/);
      assert.equal(check.convalidated, true);
    } finally {
      await db.close();
    }
  },
});
