/**
 * supabase/schemas/ is the database as the migrations leave it, one file per thing: built from either, a
 * database has the same catalogs, whichever default privileges the project has.
 */
import assert from "node:assert/strict";
import { applySchemas, readSchemaFiles } from "../local/declarative_schemas.ts";
import { type DefaultPrivileges, resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import { createTestDatabase, POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";
import { catalogDifferences, schemaCatalog } from "../local/schema_catalog.ts";

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(
    `notice: PostgreSQL is not reachable at ${
      new URL(POSTGRES_SERVER_URL).host
    }; the schemas are not compared`,
  );
}

/** A fresh database of this run, built by `build`; its catalog, then the database is dropped. */
async function catalogOf(build: (url: string) => Promise<void>): Promise<Map<string, string>> {
  const { name, url } = await createTestDatabase();
  try {
    await build(url);
    const db = openPostgres(url, 1);
    try {
      return await schemaCatalog(db);
    } finally {
      await db.close();
    }
  } finally {
    const admin = openPostgres(POSTGRES_SERVER_URL, 1);
    await admin.exec(`drop database if exists ${name} with (force)`).finally(() => admin.close());
  }
}

async function migrated(url: string, defaultPrivileges: DefaultPrivileges): Promise<void> {
  const db = openPostgres(url, 1);
  await resetDatabase(db, { seed: false, defaultPrivileges }).finally(() => db.close());
}

async function fromSchemas(url: string, defaultPrivileges: DefaultPrivileges): Promise<void> {
  const db = openPostgres(url, 1);
  await applySchemas(db, { defaultPrivileges }).finally(() => db.close());
}

for (const defaultPrivileges of ["none", "permissive"] as const) {
  Deno.test({
    name:
      `[postgres] supabase/schemas/ builds the database the migrations leave (${defaultPrivileges} default privileges): the same tables, columns, constraints, indexes, policies, grants, triggers, functions and comments`,
    ignore: !reachable,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const [fromMigrations, described] = await Promise.all([
        catalogOf((url) => migrated(url, defaultPrivileges)),
        catalogOf((url) => fromSchemas(url, defaultPrivileges)),
      ]);
      assert.ok(fromMigrations.size > 300, `the migrations made ${fromMigrations.size} objects`);
      assert.deepEqual(catalogDifferences(fromMigrations, described, { a: "migrations", b: "schemas" }), []);
    },
  });
}

/** `create [or replace] function public.<name>(<arguments>)` of a schema file, with where it stands. */
function functionsOf(sql: string): { name: string; signature: string }[] {
  const found: { name: string; signature: string }[] = [];
  const start = /^create\s+(?:or\s+replace\s+)?function\s+public\.(\w+)\s*\(/gim;
  for (const match of sql.matchAll(start)) {
    let depth = 1;
    let end = match.index + match[0].length;
    while (depth > 0 && end < sql.length) {
      if (sql[end] === "(") depth++;
      if (sql[end] === ")") depth--;
      end++;
    }
    const args = sql.slice(match.index + match[0].length, end - 1).replace(/\s+/g, " ").trim();
    found.push({ name: match[1], signature: `${match[1]}(${args})` });
  }
  return found;
}

Deno.test("supabase/schemas/: each file opens with a comment on its purpose, and defines each function once, with its grants beside it", async () => {
  const files = await readSchemaFiles();
  assert.ok(files.length >= 10, `${files.length} schema files`);
  const definedIn = new Map<string, string>();
  const problems: string[] = [];
  for (const file of files) {
    assert.match(file.name, /^\d{2}_[a-z_]+\.sql$/);
    if (!file.sql.startsWith("-- ")) {
      problems.push(`${file.name} does not open with a comment on its purpose`);
    }
    for (const { name, signature } of functionsOf(file.sql)) {
      const earlier = definedIn.get(signature);
      if (earlier) problems.push(`${signature} is defined in ${earlier} and again in ${file.name}`);
      definedIn.set(signature, file.name);
      const revoke = new RegExp(`revoke execute on function public\\.${name}\\(`, "i");
      if (!revoke.test(file.sql)) problems.push(`${file.name} defines ${name} without its grants`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(definedIn.size > 60, `${definedIn.size} functions`);
});
