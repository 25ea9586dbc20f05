/**
 * The database as one file per thing: supabase/schemas/*.sql, applied in the order of their names to a
 * database that has only what a Supabase project has before its first migration (migrate.ts's prelude).
 * The migrations must leave a database equal to it (tests/declarative_schemas_test.ts), and
 * `deno task db:diff` writes the migration that makes them equal again after a schema file changed.
 */
import { type DefaultPrivileges, supabasePreludeSql } from "./migrate.ts";
import type { SqlDatabase } from "./sql_database.ts";

const SCHEMAS_DIR = new URL("../supabase/schemas/", import.meta.url);

/** The schema files, in the order Supabase's CLI applies them (`schema_paths = ["./schemas/*.sql"]`). */
export async function readSchemaFiles(): Promise<{ name: string; sql: string }[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(SCHEMAS_DIR)) {
    if (entry.isFile && entry.name.endsWith(".sql")) names.push(entry.name);
  }
  names.sort();
  return await Promise.all(
    names.map(async (name) => ({ name, sql: await Deno.readTextFile(new URL(name, SCHEMAS_DIR)) })),
  );
}

/**
 * Builds the database the schema files describe on an empty one: the prelude under `defaultPrivileges`
 * (default `none`, as new Supabase projects), then each file in its own transaction.
 */
export async function applySchemas(
  db: SqlDatabase,
  options: { defaultPrivileges?: DefaultPrivileges } = {},
): Promise<void> {
  await db.exec(supabasePreludeSql(options.defaultPrivileges ?? "none"));
  for (const file of await readSchemaFiles()) {
    try {
      await db.execTransaction(file.sql);
    } catch (error) {
      throw new Error(`supabase/schemas/${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
