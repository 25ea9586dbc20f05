import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { readMigrations, resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import { pgliteDatabase } from "../local/sql_database.ts";
import { POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";
import { ORDER_STATUSES } from "./support/lifecycle.ts";

const TABLES = [
  "email_outbox",
  "idempotency_keys",
  "order_counters",
  "order_items",
  "order_rate_limits",
  "order_status_history",
  "orders",
  "product_variants",
  "products",
  "stores",
];

Deno.test("readMigrations() lists the migrations in timestamp order, each opening with a comment", async () => {
  const migrations = await readMigrations();
  assert.deepEqual(migrations.map((m) => m.name), [...migrations.map((m) => m.name)].sort());
  for (const migration of migrations) {
    assert.match(migration.name, /^\d{14}_[a-z_]+\.sql$/);
    assert.ok(migration.sql.startsWith("-- "), `${migration.name} must open with a comment on its purpose`);
  }
});

async function assertSchema(query: (sql: string) => Promise<Record<string, unknown>[]>) {
  const tables = await query(
    "select tablename, rowsecurity from pg_tables where schemaname = 'public' order by tablename",
  );
  assert.deepEqual(tables.map((t) => t.tablename), TABLES);
  assert.ok(tables.every((t) => t.rowsecurity === true), "row level security is on for every table");
  const statuses = await query("select unnest(enum_range(null::public.order_status))::text as s");
  assert.deepEqual(statuses.map((r) => r.s), ORDER_STATUSES);
  const seeded = await query("select count(*)::int as n from public.products");
  assert.equal(seeded[0].n, 4);
}

Deno.test({
  name: "[pglite] resetDatabase() applies every migration and the seed, twice in a row",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = pgliteDatabase(await PGlite.create());
    try {
      await resetDatabase(db);
      await resetDatabase(db, { dropExisting: true });
      await assertSchema((sql) => db.query(sql));
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name: "[postgres] db:reset creates the schema on a fresh database twice in a row",
  ignore: !(await postgresReachable()),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const name = `create_order_reset_${crypto.randomUUID().slice(0, 8)}`;
    const admin = openPostgres(POSTGRES_SERVER_URL, 1);
    await admin.exec(`create database ${name}`);
    const url = new URL(POSTGRES_SERVER_URL);
    url.pathname = `/${name}`;
    try {
      for (let run = 0; run < 2; run++) {
        const command = new Deno.Command(Deno.execPath(), {
          args: ["task", "--quiet", "db:reset"],
          env: { DATABASE_URL: url.href, NO_COLOR: "1" },
          cwd: new URL("..", import.meta.url),
          stdout: "piped",
          stderr: "piped",
        });
        const output = await command.output();
        assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      }
      const db = openPostgres(url.href, 1);
      try {
        await assertSchema((sql) => db.query(sql));
      } finally {
        await db.close();
      }
    } finally {
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  },
});
