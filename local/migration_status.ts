/**
 * Whether a database has every migration of supabase/migrations/, by the record Supabase's CLI keeps
 * (`supabase_migrations.schema_migrations`, which `resetDatabase` keeps too). A stack over a database
 * without them would start and then answer every call 500 (PostgREST's PGRST202: no such function), so
 * `deno task dev` asks first.
 */
import { migrationVersion, readMigrations } from "./migrate.ts";
import type { SqlSession } from "./sql_database.ts";

/** The migration files (without `.sql`) the database has no record of, in order; [] when it has them all. */
export async function missingMigrations(db: SqlSession): Promise<string[]> {
  const files = (await readMigrations()).map((migration) => migration.name.replace(/\.sql$/, ""));
  const [{ recorded }] = await db.query<{ recorded: boolean }>(
    "select to_regclass('supabase_migrations.schema_migrations') is not null as recorded",
  );
  if (!recorded) return files;
  const rows = await db.query<{ version: string }>(
    "select version from supabase_migrations.schema_migrations",
  );
  const applied = new Set(rows.map((row) => row.version));
  return files.filter((file) => !applied.has(migrationVersion(`${file}.sql`).version));
}

/** What `deno task dev` says when `missing` is not empty: which, and how to bring the database up to date. */
export function describeMissingMigrations(
  missing: string[],
  total: number,
  database: "pglite" | "postgres",
): string {
  const named = missing.length > 3 ? `${missing.slice(0, 3).join(", ")}, …` : missing.join(", ");
  const what = database === "pglite" ? ".local/db/" : "the database at DATABASE_URL";
  const fix = database === "pglite"
    ? "It was made by an older checkout: delete it (rm -rf .local/db) and start again, it is created, " +
      "migrated and seeded anew."
    : "Apply them: DATABASE_URL=… npx -y deno@2.9.6 task db:reset (drops and recreates its public schema), " +
      "or supabase migration up on the Supabase CLI's database.";
  return `dev: ${what} lacks ${missing.length} of the ${total} migrations (${named}), ` +
    `so every order would fail. ${fix}`;
}
