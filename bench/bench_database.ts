/** The throwaway database of one bench run: created fresh on the server at DATABASE_URL, dropped at the end. */
import postgres from "postgres";
import { resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { catalogueSql } from "./catalogue.ts";

/** A migrated, seeded database only this run uses. */
export interface BenchDatabase {
  /** Its URL (the server's URL with the database name replaced). */
  url: string;
  name: string;
  /** A small pool for the bench's own checks. */
  db: SqlDatabase;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** Creates `bench_<timestamp>`, applies the migrations and seeds the bench catalogue. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `bench_${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${Deno.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.href, 2);
  try {
    await resetDatabase(db, { seed: false });
    await db.exec(catalogueSql());
  } catch (error) {
    await db.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    throw error;
  }
  return {
    url: url.href,
    name,
    db,
    async drop() {
      await db.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
