import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] stores.time_zone defaults to Asia/Kolkata`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const store = await createTestStore(db);
      const [{ time_zone }] = await db.query<{ time_zone: string }>(
        "select time_zone from public.stores where id = $1",
        [store.storeId],
      );
      assert.equal(time_zone, "Asia/Kolkata");
    },
  });

  Deno.test({
    name: `[${name}] stores.time_zone takes IANA names and refuses anything else`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const store = await createTestStore(db);
      for (
        const zone of ["Asia/Kolkata", "Europe/London", "America/Argentina/Buenos_Aires", "UTC", "Asia/Dubai"]
      ) {
        await t.step(`${zone}: accepted`, async () => {
          await db.query("update public.stores set time_zone = $2 where id = $1", [store.storeId, zone]);
        });
      }
      for (const zone of ["", "IST", "+05:30", "UTC+5", "Asia/Nowhere", "asia/kolkata ", "Asia/Kolkata\n"]) {
        await t.step(`${JSON.stringify(zone)}: refused`, async () => {
          await assert.rejects(
            db.query("update public.stores set time_zone = $2 where id = $1", [store.storeId, zone]),
            (error: { code?: string }) => error.code === "23514",
          );
        });
      }
    },
  });

  Deno.test({
    name: `[${name}] stores.time_zone is readable by anon, as the currency is`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const store = await createTestStore(db);
      const rows = await db.asRole(
        "anon",
        (s) =>
          s.query<{ time_zone: string }>("select time_zone from public.stores where id = $1", [
            store.storeId,
          ]),
      );
      assert.deepEqual(rows, [{ time_zone: "Asia/Kolkata" }]);
    },
  });
}
