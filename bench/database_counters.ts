/**
 * The bench database's cumulative statistics, read so that a run's deltas are complete and exclude the
 * bench's own reads. PostgreSQL 15 backends flush their counters when they go idle, but at most once a
 * second: what a backend did within a second of its last flush waits for a timer 10 s later
 * (PGSTAT_IDLE_INTERVAL), or for its exit. So a snapshot first waits until no client backend of the
 * bench database has been busy in the last 11 s, no autovacuum worker is in it, and the database's row
 * of `pg_stat_database` has not moved for 1.25 s. Transactions are read from the meter session, which is connected to another
 * database and so adds none; the per-table counters of `pg_stat_user_tables` can only be read from
 * inside the bench database, by a fresh session that is closed at once (it flushes on exit): each such
 * session adds a fixed number of transactions, measured at start ({@linkcode DatabaseCounters.calibrate})
 * and subtracted from every run.
 */
import postgres, { type Sql } from "postgres";

/** Cumulative tuple counters of one table. */
export interface TupleCounters {
  inserted: number;
  updated: number;
  hotUpdated: number;
  deleted: number;
}

/** The bench database's counters at one moment, after the flushes have settled. */
export interface CounterSnapshot {
  /** xact_commit + xact_rollback of the bench database. */
  transactions: number;
  /** Sessions ever started in the bench database (pg_stat_database.sessions). */
  sessions: number;
  /** Rows in public.orders. */
  orders: number;
  /** pg_stat_user_tables of schema public, by table. */
  tables: Record<string, TupleCounters>;
  /** autovacuum_count + autoanalyze_count over all tables of the database, catalogues included. */
  autovacuums: number;
  /** Sessions the bench opened in the bench database so far, to read the counters. */
  readerSessions: number;
  /** False when orders' n_tup_ins never caught up with count(*) (the statistics are short). */
  complete: boolean;
}

/** Reads settled snapshots of one bench database. */
export interface DatabaseCounters {
  snapshot(): Promise<CounterSnapshot>;
  /** Transactions one reader session adds (measured on the idle database: the smallest of 3). */
  calibrate(): Promise<number>;
}

const _sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const _TABLES_SQL = `
select relname as table_name, n_tup_ins::text as inserted, n_tup_upd::text as updated,
  n_tup_hot_upd::text as hot_updated, n_tup_del::text as deleted,
  (select sum(autovacuum_count + autoanalyze_count) from pg_stat_all_tables)::text as autovacuums,
  (select count(*) from public.orders)::text as orders
from pg_stat_user_tables where schemaname = 'public'`;

/** Counters of the database `benchName` at `benchUrl`, read with the meter session `meter`. */
export function databaseCounters(meter: Sql, benchUrl: string, benchName: string): DatabaseCounters {
  let readerSessions = 0;

  const databaseRow = async (): Promise<{ key: string; busy: boolean }> => {
    const [row] = await meter.unsafe<Record<string, string | boolean>[]>(
      `select (xact_commit + xact_rollback)::text as transactions, sessions::text as sessions,
         tup_inserted::text as i, tup_updated::text as u, tup_deleted::text as d,
         exists (select 1 from pg_stat_activity a where a.datname = d.datname
           and (a.backend_type = 'autovacuum worker' or a.backend_type = 'client backend'
             and (a.state is distinct from 'idle' or a.state_change > now() - interval '11 seconds'))) as busy
       from pg_stat_database d where datname = $1`,
      [benchName],
    );
    return {
      key: `${row.transactions}/${row.sessions}/${row.i}/${row.u}/${row.d}`,
      busy: row.busy as boolean,
    };
  };

  /**
   * Waits (up to 60 s) until no client backend was busy in the last 11 s, no autovacuum worker is at
   * work in the database (it flushes when it exits), and the row is unchanged for 5 reads 250 ms apart;
   * returns its transactions and sessions.
   */
  const settle = async (): Promise<{ transactions: number; sessions: number }> => {
    let last = await databaseRow();
    for (let same = 0, waited = 0; (same < 5 || last.busy) && waited < 60_000; waited += 250) {
      await _sleep(250);
      const now = await databaseRow();
      same = now.key === last.key ? same + 1 : 0;
      last = now;
    }
    const [transactions, sessions] = last.key.split("/").map(Number);
    return { transactions, sessions };
  };

  const readTables = async () => {
    const reader = postgres(benchUrl, { max: 1, onnotice: () => {}, fetch_types: false, prepare: false });
    readerSessions++;
    try {
      return await reader.unsafe<Record<string, string>[]>(_TABLES_SQL).simple();
    } finally {
      await reader.end();
    }
  };

  const snapshot = async (): Promise<CounterSnapshot> => {
    await settle();
    let rows = await readTables();
    // a flush can be held back (lock contention): orders' inserts must match the rows there
    for (let attempt = 0; attempt < 5 && !_complete(rows); attempt++) {
      await _sleep(1_000);
      rows = await readTables();
    }
    const { transactions, sessions } = await settle();
    const tables: Record<string, TupleCounters> = {};
    for (const row of rows) {
      tables[row.table_name] = {
        inserted: Number(row.inserted),
        updated: Number(row.updated),
        hotUpdated: Number(row.hot_updated),
        deleted: Number(row.deleted),
      };
    }
    return {
      transactions,
      sessions,
      orders: Number(rows[0]?.orders ?? 0),
      tables,
      autovacuums: Number(rows[0]?.autovacuums ?? 0),
      readerSessions,
      complete: _complete(rows),
    };
  };

  return {
    snapshot,
    async calibrate() {
      const costs: number[] = [];
      let before = await snapshot();
      for (let i = 0; i < 3; i++) {
        const after = await snapshot();
        costs.push(
          (after.transactions - before.transactions) / (after.readerSessions - before.readerSessions),
        );
        before = after;
      }
      return Math.min(...costs);
    },
  };
}

/** No bench order's insert is rolled back, so once every flush is in, orders' inserted - deleted = its rows. */
function _complete(rows: Record<string, string>[]): boolean {
  const orders = rows.find((row) => row.table_name === "orders");
  return !!orders && Number(orders.inserted) - Number(orders.deleted) === Number(orders.orders);
}
