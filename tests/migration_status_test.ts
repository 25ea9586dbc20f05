/** `deno task dev` over a database without the migrations says so at start, and how to fix it. */
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { readMigrations, resetDatabase } from "../local/migrate.ts";
import { describeMissingMigrations, missingMigrations } from "../local/migration_status.ts";
import { openPglite, openPostgres } from "../local/open_database.ts";
import { pgliteDatabase } from "../local/sql_database.ts";
import { createTestDatabase, POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";
import { runTask } from "./support/task_process.ts";

const FILES = (await readMigrations()).map((migration) => migration.name.replace(/\.sql$/, ""));

Deno.test({
  name:
    "[pglite] missingMigrations() names every migration of an empty database, none after resetDatabase(), and one whose record is gone",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = pgliteDatabase(await PGlite.create());
    try {
      assert.deepEqual(await missingMigrations(db), FILES);
      await resetDatabase(db);
      assert.deepEqual(await missingMigrations(db), []);
      await db.exec(
        `delete from supabase_migrations.schema_migrations where version = '${FILES.at(-1)!.split("_")[0]}'`,
      );
      assert.deepEqual(await missingMigrations(db), [FILES.at(-1)]);
      await resetDatabase(db, { dropExisting: true });
      assert.deepEqual(await missingMigrations(db), []);
    } finally {
      await db.close();
    }
  },
});

Deno.test("describeMissingMigrations() names the first three missing and the fix for each database", () => {
  const missing = [
    "20261122000100_catalogue",
    "20261122000200_orders",
    "20261122000300_x",
    "20261122000400_y",
  ];
  assert.equal(
    describeMissingMigrations(missing, 21, "postgres"),
    "dev: the database at DATABASE_URL lacks 4 of the 21 migrations (20261122000100_catalogue, " +
      "20261122000200_orders, 20261122000300_x, …), so every order would fail. Apply them: DATABASE_URL=… " +
      "npx -y deno@2.9.6 task db:reset (drops and recreates its public schema), or supabase migration up on " +
      "the Supabase CLI's database.",
  );
  assert.equal(
    describeMissingMigrations(missing.slice(3), 21, "pglite"),
    "dev: .local/db/ lacks 1 of the 21 migrations (20261122000400_y), so every order would fail. It was made " +
      "by an older checkout: delete it (rm -rf .local/db) and start again, it is created, migrated and seeded anew.",
  );
});

Deno.test({
  name: "deno task dev over a .local/db/ that lacks the newest migration says so and how to fix it, exit 2",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cwd = await Deno.makeTempDir();
    try {
      const db = await openPglite(`${cwd}/.local/db`);
      await db.exec(
        `delete from supabase_migrations.schema_migrations where version = '${FILES.at(-1)!.split("_")[0]}'`,
      );
      await db.close();
      const dev = await runTask("dev", { cwd, env: { DATABASE_URL: "", PORT: "0" } });
      assert.equal(dev.code, 2);
      assert.equal(dev.stderr.trim(), describeMissingMigrations([FILES.at(-1)!], FILES.length, "pglite"));
      assert.equal(dev.stdout, "");
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "[postgres] deno task dev over an empty DATABASE_URL says it lacks every migration and how to apply them, exit 2",
  ignore: !(await postgresReachable()),
  async fn() {
    const { name, url } = await createTestDatabase();
    const admin = openPostgres(POSTGRES_SERVER_URL, 1);
    try {
      const dev = await runTask("dev", { cwd: Deno.cwd(), env: { DATABASE_URL: url, PORT: "0" } });
      assert.equal(dev.code, 2);
      assert.equal(dev.stderr.trim(), describeMissingMigrations(FILES, FILES.length, "postgres"));
    } finally {
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  },
});
