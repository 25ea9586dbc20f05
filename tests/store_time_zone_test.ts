import assert from "node:assert/strict";
import { hasStoreTimeZoneShape, isStoreTimeZoneShape } from "../local/store_add.ts";
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
    name:
      `[${name}] stores.time_zone refuses the names of pg_timezone_names that are no location's zone: the posix/ and right/ trees, localtime, posixrules, Factory, POSIX-style and alias names`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const store = await createTestStore(db);
      const refused = [
        "posix/Asia/Kolkata",
        "right/Asia/Kolkata",
        "localtime",
        "posixrules",
        "Factory",
        "EST5EDT",
        "EST",
        "Etc/GMT+5",
        "Etc/UTC",
        "GMT",
        "US/Eastern",
        "Japan",
      ];
      const [{ listed }] = await db.query<{ listed: string[] }>(
        "select array_agg(name order by name) as listed from pg_timezone_names where name = any($1)",
        [refused],
      );
      // the server lists them (so the old check took them; PGlite lacks the posix/ and right/ trees and localtime): no more
      assert.ok(listed.includes("EST5EDT") && listed.includes("Factory"), listed.join(" "));
      for (const zone of refused) {
        await t.step(`${zone}: refused`, async () => {
          await assert.rejects(
            db.query("update public.stores set time_zone = $2 where id = $1", [store.storeId, zone]),
            (error: { code?: string }) => error.code === "23514",
          );
          assert.equal(isStoreTimeZoneShape(zone), false, "store:add refuses it before the database");
        });
      }
    },
  });

  Deno.test({
    name:
      `[${name}] every name of pg_timezone_names of the shape stores.time_zone takes is one Intl formats dates in, and store:add's shape is the database's`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      // one scan: is_time_zone reads the server's whole list at each call
      const rows = await db.query<{ name: string }>("select name from pg_timezone_names order by name");
      const shaped = rows.map((row) => row.name).filter(hasStoreTimeZoneShape);
      assert.ok(shaped.length > 300, `${shaped.length} zones`);
      assert.deepEqual(shaped.filter((zone) => !isStoreTimeZoneShape(zone)), [], "names Intl refuses");
      const sample = ["UTC", "Asia/Kolkata", "America/Argentina/Buenos_Aires", "EST5EDT", "Etc/UTC", "GMT"];
      const [{ taken }] = await db.query<{ taken: string[] }>(
        "select coalesce(array_agg(n order by n), '{}') as taken from unnest($1::text[]) n where public.is_time_zone(n)",
        [sample],
      );
      assert.deepEqual(taken, sample.filter(hasStoreTimeZoneShape).sort());
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
