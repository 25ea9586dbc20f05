/**
 * The real databases the suite runs on. Deno runs each test file in its own isolate, so each file that
 * asks gets one migrated PGlite (opening one costs seconds and hundreds of MB: the file's tests share it
 * and isolate themselves by creating their own stores) and one fresh PostgreSQL database on the server at
 * 127.0.0.1:5432. Both are migrated as a new Supabase project is set up today (no default privileges); the
 * migration and RLS tests also use one under the old permissive ones. Every PostgreSQL database a test makes
 * ({@linkcode createTestDatabase}) is dropped by its own run's reaper once the run has ended, whether its
 * tests passed or failed (test_run.ts).
 */
import { type DefaultPrivileges, readMigrations, resetDatabase } from "../../local/migrate.ts";
import { openPglite, openPostgres } from "../../local/open_database.ts";
import { TEST_DATABASE_PREFIX } from "../../local/reset_consent.ts";
import { pgliteDatabase, type SqlDatabase } from "../../local/sql_database.ts";
import { ensureRunReaper, runTag, testRunId } from "./test_run.ts";

/** Where the suite looks for PostgreSQL; TEST_DATABASE_URL overrides (a server, not a database). */
export const POSTGRES_SERVER_URL = Deno.env.get("TEST_DATABASE_URL") ??
  "postgres://postgres@127.0.0.1:5432/postgres";

let pglite: Promise<SqlDatabase> | undefined;
let postgresDb: Promise<SqlDatabase | null> | undefined;
let postgresUrl: string | undefined;

/** This test file's shared, migrated and seeded in-memory PGlite. */
export function sharedPglite(): Promise<SqlDatabase> {
  return pglite ??= openPglite();
}

/** Whether PostgreSQL answers at {@linkcode POSTGRES_SERVER_URL}; under CI=true it must. */
export async function postgresReachable(): Promise<boolean> {
  const url = new URL(POSTGRES_SERVER_URL);
  try {
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port || 5432) });
    conn.close();
    return true;
  } catch {
    if (Deno.env.get("CI") === "true") {
      throw new Error(`CI=true but PostgreSQL is not reachable at ${url.host}: .ci/run must start it`);
    }
    return false;
  }
}

/**
 * This test file's own fresh PostgreSQL database (migrated and seeded), or null when no server is
 * reachable (the PostgreSQL half of the suite is then skipped with a notice).
 */
export function sharedPostgres(): Promise<SqlDatabase | null> {
  return postgresDb ??= _createPostgres();
}

async function _createPostgres(): Promise<SqlDatabase | null> {
  if (!(await postgresReachable())) {
    console.warn(
      `notice: PostgreSQL is not reachable at ${new URL(POSTGRES_SERVER_URL).host}; its tests are skipped`,
    );
    return null;
  }
  const { db, url } = await _newPostgresDatabase(20, "none");
  postgresUrl = url;
  return db;
}

/**
 * Creates an empty database on the test server (named `create_order_test_<ms>_<hex>` unless `name` is
 * given), tagged as this run's, so that the run's reaper drops it when the run ends; the test may drop it
 * sooner. Returns its name and URL.
 */
export async function createTestDatabase(name?: string): Promise<{ name: string; url: string }> {
  name ??= `${TEST_DATABASE_PREFIX}${Date.now()}_${crypto.randomUUID().slice(0, 8)}`;
  ensureRunReaper(POSTGRES_SERVER_URL);
  const admin = openPostgres(POSTGRES_SERVER_URL, 1);
  try {
    await _dropStaleTestDatabases(admin);
    await admin.exec(`create database ${name}`);
    await admin.exec(`comment on database ${name} is '${runTag(testRunId())}'`);
  } finally {
    await admin.close();
  }
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return { name, url: url.href };
}

/** A new database on the test server, migrated and seeded under `defaultPrivileges`. */
async function _newPostgresDatabase(
  poolSize: number,
  defaultPrivileges: DefaultPrivileges,
): Promise<{ db: SqlDatabase; url: string }> {
  const { url } = await createTestDatabase();
  const db = openPostgres(url, poolSize);
  await resetDatabase(db, { defaultPrivileges });
  return { db, url };
}

/**
 * A second PostgreSQL database of this test file, migrated under the old permissive default privileges
 * (everything new granted to anon, authenticated and service_role), or null when no server is reachable.
 */
export async function permissivePostgres(): Promise<SqlDatabase | null> {
  if (!(await postgresReachable())) return null;
  return (await _newPostgresDatabase(5, "permissive")).db;
}

/** A test database older than this belongs to a run that has ended. */
const STALE_AFTER_MS = 20 * 60 * 1000;

/**
 * The backstop for runs whose reaper could not drop their databases (no --allow-run, the machine stopped):
 * drops test databases made more than {@linkcode STALE_AFTER_MS} ago (the time is in the name) that no
 * session uses (a drop without `force` fails on one in use, and is then left alone). A concurrent run's
 * database is younger, or in use by its file's open pool.
 */
async function _dropStaleTestDatabases(admin: SqlDatabase): Promise<void> {
  const rows = await admin.query<{ datname: string }>(
    "select datname from pg_database where datname like 'create_order_test_%'",
  );
  for (const { datname } of rows) {
    const madeAt = Number(/^create_order_test_(\d+)_/.exec(datname)?.[1]);
    if (!(Date.now() - madeAt > STALE_AFTER_MS)) continue;
    await admin.exec(`drop database if exists ${datname}`).catch(() => {});
  }
}

/** The connection URL of {@linkcode sharedPostgres}'s database, for a test that starts another process on it. */
export async function sharedPostgresUrl(): Promise<string | null> {
  return (await sharedPostgres()) ? postgresUrl! : null;
}

/** The databases a test should run on: PGlite always, PostgreSQL when reachable. */
export async function testDatabases(): Promise<{ name: "pglite" | "postgres"; db: SqlDatabase }[]> {
  const all: { name: "pglite" | "postgres"; db: SqlDatabase }[] = [{
    name: "pglite",
    db: await sharedPglite(),
  }];
  const pg = await sharedPostgres();
  if (pg) all.push({ name: "postgres", db: pg });
  return all;
}

/**
 * A PGlite of the caller's own (to close), migrated as a new project is up to the migration whose file name
 * starts with `version`, without the seed: the database that migration finds on a project migrated before
 * it. `remaining` is that migration and those after it, in order, for the test to apply.
 */
export async function pgliteBefore(
  version: string,
): Promise<{ db: SqlDatabase; remaining: { name: string; sql: string }[] }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const migrations = await readMigrations();
  const db = pgliteDatabase(await PGlite.create());
  await resetDatabase(db, { migrations: migrations.filter((m) => m.name < version), seed: false });
  return { db, remaining: migrations.filter((m) => m.name >= version) };
}
