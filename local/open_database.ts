/** Opens the database the local stack runs on: PostgreSQL at DATABASE_URL, else an embedded PGlite. */
import postgres from "postgres";
import { lockDataDir } from "./data_dir_lock.ts";
import { resetDatabase } from "./migrate.ts";
import { pgliteDatabase, postgresDatabase, type SqlDatabase } from "./sql_database.ts";

/** Connects to a real PostgreSQL; `max` is the pool size. */
export function openPostgres(url: string, max = 10): SqlDatabase {
  return postgresDatabase(postgres(url, { max, onnotice: () => {}, prepare: true }));
}

/**
 * Opens an embedded PGlite. With `dataDir` it is kept on disk, created, migrated and seeded on first use,
 * and locked for this process (`holder` names it to the next one that tries: see
 * {@linkcode lockDataDir}); without, it lives in memory and is migrated now.
 */
export async function openPglite(dataDir?: string, holder = "another process"): Promise<SqlDatabase> {
  if (dataDir === undefined) return await _createPglite();
  await Deno.mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(dataDir, holder);
  try {
    const fresh = !(await _exists(`${dataDir}/PG_VERSION`));
    const db = await _createPglite(dataDir, fresh);
    return {
      ...db,
      async close() {
        await db.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function _createPglite(dataDir?: string, fresh = true): Promise<SqlDatabase> {
  // loaded here, not at the top: a stack over PostgreSQL never pays for PGlite's module at start
  const { PGlite } = await import("@electric-sql/pglite");
  const db = pgliteDatabase(await PGlite.create(dataDir ? { dataDir } : {}));
  if (fresh) await resetDatabase(db);
  return db;
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
