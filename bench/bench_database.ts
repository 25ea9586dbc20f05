/**
 * The throwaway databases of one bench run, created fresh on the server at DATABASE_URL and dropped at
 * the end: the bench database, and a meter database beside it (with pg_walinspect) from which the
 * bench reads the server's statistics and WAL without adding transactions to the bench database.
 */
import postgres from "postgres";
import { resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { catalogueSql } from "./catalogue.ts";
import { PGBENCH_RETRY_SQL } from "./pgbench.ts";

/** A migrated, seeded database only this run uses. */
export interface BenchDatabase {
  /** Its URL (the server's URL with the database name replaced). */
  url: string;
  name: string;
  /** Its OID (the database part of the relation paths in WAL records). */
  oid: number;
  /** The URL of the meter database. */
  meterUrl: string;
  /** A small pool for the bench's own checks. */
  db: SqlDatabase;
  /** Closes the pool and drops both databases. */
  drop(): Promise<void>;
}

/**
 * Creates `bench_<timestamp>_<pid>[_<purpose>]` (migrated, bench catalogue seeded, pgbench's retrying
 * create_order beside it) and the same name with `_meter`.
 */
export async function createBenchDatabase(serverUrl: string, purpose?: string): Promise<BenchDatabase> {
  const name = `bench_${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${Deno.pid}${
    purpose ? `_${purpose}` : ""
  }`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.unsafe(`create database ${name}_meter`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const meterUrl = new URL(serverUrl);
  meterUrl.pathname = `/${name}_meter`;
  const db = openPostgres(url.href, 2);
  const dropAll = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`drop database if exists ${name}_meter with (force)`);
    await admin.end();
  };
  let oid: number;
  try {
    await resetDatabase(db, { seed: false });
    await db.exec(catalogueSql());
    // pgbench's create_order as the function's adapter makes it (a STORE_BUSY tried again)
    await db.exec(PGBENCH_RETRY_SQL);
    // the migrations' catalogue rows and the seed vacuumed now, not by autovacuum inside a measured run
    await db.exec("vacuum analyze");
    const meter = postgres(meterUrl.href, { max: 1, onnotice: () => {} });
    // without the extension the WAL figures are the cluster's LSN deltas, unattributed (the report says so)
    await meter.unsafe("create extension if not exists pg_walinspect").catch(() => {});
    await meter.end();
    [{ oid }] = await db.query<{ oid: number }>(
      "select oid::integer as oid from pg_database where datname = current_database()",
    );
  } catch (error) {
    await db.close();
    await dropAll();
    throw error;
  }
  return {
    url: url.href,
    name,
    oid,
    meterUrl: meterUrl.href,
    db,
    async drop() {
      await db.close();
      await dropAll();
    },
  };
}
