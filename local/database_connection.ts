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

/** The URL a PostgreSQL connection string names, or the sentence that says it is none. */
export function parseDatabaseUrl(raw: string): URL {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // said below
  }
  if (!url || !["postgres:", "postgresql:"].includes(url.protocol)) {
    // the value itself is not repeated: it may hold a password
    throw new DatabaseUnavailableError(
      "DATABASE_URL is not a PostgreSQL connection string: it must look like " +
        "postgresql://<user>:<password>@<host>:5432/<database> (characters such as @ : / in the password " +
        "written %40 %3A %2F)",
    );
  }
  return url;
}

/**
 * Opens the PostgreSQL at `url` (pool size `max`) and checks that it answers, or throws
 * {@linkcode DatabaseUnavailableError} with the reason and the fix.
 */
export async function connectPostgres(url: string, max = 10): Promise<SqlDatabase> {
  const parsed = parseDatabaseUrl(url);
  let db: SqlDatabase;
  try {
    db = openPostgres(url, max);
  } catch (error) {
    throw new DatabaseUnavailableError(describeConnectionFailure(error, parsed), { cause: error });
  }
  try {
    await db.query("select 1");
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    throw new DatabaseUnavailableError(describeConnectionFailure(error, parsed), { cause: error });
  }
}

/** Whether `url` asks for TLS (`sslmode=require`, `verify-ca`, `verify-full`, or `ssl=true`). */
function _asksForTls(url: URL): boolean {
  const mode = url.searchParams.get("sslmode") ?? "";
  return ["require", "verify-ca", "verify-full"].includes(mode) || url.searchParams.get("ssl") === "true";
}

/** The sentence for a failed first connection to `url`: the known causes with their fix, else the driver's words. */
export function describeConnectionFailure(error: unknown, url: URL): string {
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
  }
  if (_asksForTls(url) && (code === "ECONNRESET" || /\b(TLS|SSL)\b/.test(message ?? ""))) {
    return `PostgreSQL at ${where} does not take TLS, which DATABASE_URL asks for (sslmode=` +
      `${url.searchParams.get("sslmode") ?? "require"}): leave sslmode out for a server on this machine; ` +
      "a hosted Supabase project takes TLS, so check its host and port (Dashboard → Connect)";
  }
  return `PostgreSQL at ${where} (DATABASE_URL) cannot be used: ${message ?? String(error)}`;
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
