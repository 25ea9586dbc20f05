/**
 * The database the go-live tasks (store:add, catalogue:import) write to: the PostgreSQL at DATABASE_URL
 * (a hosted project's connection string works; `?sslmode=require` asks for TLS), else the local stack's
 * PGlite in .local/db/, as `deno task orders` reads. Each task says which, so a run meant for a project
 * that forgot DATABASE_URL is seen to have gone to the local database.
 */
import { DataDirInUseError } from "./data_dir_lock.ts";
import { connectPostgresOrExit } from "./database_connection.ts";
import { openPglite } from "./open_database.ts";
import type { SqlDatabase } from "./sql_database.ts";

/** Where a task's database is, as it prints it: never the password. */
export function describeDatabase(url: string | undefined): string {
  if (!url) return "the local stack's PGlite in .local/db/ (DATABASE_URL is not set)";
  const parsed = new URL(url);
  return `PostgreSQL at ${parsed.host}${parsed.pathname} (DATABASE_URL)`;
}

/** Opens the task's database, or prints why it cannot (a database that does not answer, PGlite in use) and exits 2. */
export async function openTaskDatabase(task: string, url: string | undefined): Promise<SqlDatabase> {
  if (url) return await connectPostgresOrExit(task, url, 1);
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
