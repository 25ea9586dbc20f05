/**
 * The local tasks' first contact with the PostgreSQL at DATABASE_URL. postgres.js connects on the first
 * query, so a database that does not exist, a port nothing listens on, an unknown host or a refused login
 * would surface as a stack trace from deep inside the driver; each task instead says what is wrong with the
 * URL and how to fix it, and exits 2.
 */
import { openPostgres } from "./open_database.ts";
import type { SqlDatabase } from "./sql_database.ts";

/** The database at DATABASE_URL cannot be used; the message is the sentence a task prints. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * Opens the PostgreSQL at `url` (pool size `max`) and checks that it answers, or throws
 * {@linkcode DatabaseUnavailableError} with the reason and the fix. Other errors pass through unchanged.
 */
export async function connectPostgres(url: string, max = 10): Promise<SqlDatabase> {
  const db = openPostgres(url, max);
  try {
    await db.query("select 1");
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    const sentence = describeConnectionFailure(error, new URL(url));
    throw sentence ? new DatabaseUnavailableError(sentence, { cause: error }) : error;
  }
}

/** The sentence for a failed first connection to `url`, or null for an error it does not know. */
export function describeConnectionFailure(error: unknown, url: URL): string | null {
  const { code, address, port, message } = error as {
    code?: string;
    address?: string;
    port?: number;
    message?: string;
  };
  const name = decodeURIComponent(url.pathname.slice(1)) || "postgres";
  const host = url.hostname || "the local socket";
  const where = `${address ?? host}:${port ?? (url.port || 5432)}`;
  switch (code) {
    case "3D000": // the server answered, but has no database of that name
      return `database ${name} does not exist: create it first (createdb ${name})`;
    case "ECONNREFUSED":
      return `nothing answers at ${where} (DATABASE_URL): start PostgreSQL there, or correct DATABASE_URL`;
    case "ENOTFOUND":
      return `the host ${host} of DATABASE_URL is not found: correct DATABASE_URL`;
    case "28000": // no such role
    case "28P01": // wrong password
      return `PostgreSQL at ${host} refuses the login (${message}): correct the user or password in DATABASE_URL`;
    default:
      return null;
  }
}

/**
 * {@linkcode connectPostgres} for a task's start: when the database cannot be used, prints the sentence
 * after the task's name (`dev: database shop does not exist: …`) and exits 2.
 */
export async function connectPostgresOrExit(task: string, url: string, max?: number): Promise<SqlDatabase> {
  try {
    return await connectPostgres(url, max);
  } catch (error) {
    if (!(error instanceof DatabaseUnavailableError)) throw error;
    console.error(`${task}: ${error.message}`);
    Deno.exit(2);
  }
}
