/**
 * The database the go-live tasks (store:add, catalogue:import) write to: the PostgreSQL at DATABASE_URL
 * (a hosted project's connection string works; `?sslmode=require` asks for TLS), else the local stack's
 * PGlite in .local/db/, as `deno task orders` reads. Each task says which, so a run meant for a project
 * that forgot DATABASE_URL is seen to have gone to the local database. A database without every migration
 * is refused before anything is read or written, with the command that migrates it.
 */
import { DataDirInUseError } from "./data_dir_lock.ts";
import { connectPostgresOrExit } from "./database_connection.ts";
import { readMigrations } from "./migrate.ts";
import { missingMigrations } from "./migration_status.ts";
import { openPglite } from "./open_database.ts";
import type { SqlDatabase } from "./sql_database.ts";

/** Where a task's database is, as it prints it: never the password. */
export function describeDatabase(url: string | undefined): string {
  if (!url) return "the local stack's PGlite in .local/db/ (DATABASE_URL is not set)";
  const parsed = URL.parse(url);
  return parsed ? `PostgreSQL at ${parsed.host}${parsed.pathname} (DATABASE_URL)` : "DATABASE_URL";
}

/**
 * The sentence for a database that lacks `missing` of the `total` migrations, or null when it has them
 * all: which, and the command that applies them where it is.
 */
export function describeUnmigrated(
  task: string,
  missing: string[],
  total: number,
  kind: "pglite" | "postgres",
): string | null {
  if (missing.length === 0) return null;
  if (kind === "pglite") {
    return `${task}: .local/db/ lacks ${missing.length} of the ${total} migrations: it was made by an older ` +
      "checkout; delete it (rm -rf .local/db) and run this again: it is created, migrated and seeded anew";
  }
  const what = missing.length === total
    ? `has none of the ${total} migrations (public.stores does not exist there yet)`
    : `lacks ${missing.length} of the ${total} migrations (${
      missing.length > 3 ? `${missing.slice(0, 3).join(", ")}, …` : missing.join(", ")
    })`;
  return `${task}: the database at DATABASE_URL ${what}: run the migrations first: supabase db push ` +
    "(a hosted project, once supabase link names it), or DATABASE_URL=… npx -y deno@2.9.6 task db:reset " +
    "(a PostgreSQL of your own: drops and recreates its public schema)";
}

/**
 * Opens the task's database, or prints why it cannot (a URL that is none, a database that does not answer
 * or was never migrated, PGlite in use) and exits 2.
 */
export async function openTaskDatabase(task: string, url: string | undefined): Promise<SqlDatabase> {
  const db = url ? await connectPostgresOrExit(task, url, 1) : await _openPglite(task);
  const refusal = describeUnmigrated(
    task,
    await missingMigrations(db),
    (await readMigrations()).length,
    db.kind,
  );
  if (refusal) {
    await db.close();
    console.error(refusal);
    Deno.exit(2);
  }
  return db;
}

async function _openPglite(task: string): Promise<SqlDatabase> {
  try {
    return await openPglite(".local/db", `the ${task} task`);
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    console.error(
      `${task}: ${error.message}. Stop it (Ctrl-C in its terminal) and run this again, or run both over ` +
        "PostgreSQL (DATABASE_URL=… for each).",
    );
    Deno.exit(2);
  }
}
