/**
 * Calls that wait on a lock, watched from outside, on a real PostgreSQL: each call runs on a connection of
 * its own, so its backend's pid is known, and a third connection reads from pg_stat_activity when the
 * call waits and when its transaction ended (the backend's own clock, not the caller's timing).
 */
import type { SqlDatabase } from "../../local/sql_database.ts";
import { ownPool } from "./postgres_faults.ts";

/** A call running on its own connection. */
export interface WatchedCall {
  pid: number;
  /** Settles when the call's answer arrives: what it returned, or the SQLSTATE it failed with. */
  outcome: Promise<{ ok: true; rows: unknown[] } | { ok: false; code: string }>;
  close(): Promise<void>;
}

/** Starts `sql` as `role` in a transaction on a new connection to `db`'s database. */
export async function startWatchedCall(
  db: SqlDatabase,
  role: string,
  sql: string,
  params: unknown[],
): Promise<WatchedCall> {
  const own = await ownPool(db, 1);
  const [{ pid }] = await own.query<{ pid: number }>("select pg_backend_pid() as pid");
  const outcome = own.asRole(role, (s) => s.query(sql, params)).then(
    (rows) => ({ ok: true as const, rows }),
    (error) => ({ ok: false as const, code: String((error as { code?: string }).code ?? "none") }),
  );
  return { pid, outcome, close: () => own.close() };
}

/** Waits until backend `pid` waits on a lock (polls up to `ms`). */
export async function waitUntilWaiting(db: SqlDatabase, pid: number, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await isWaiting(db, pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`backend ${pid} did not wait on a lock within ${ms} ms`);
}

/** Whether backend `pid` waits on a lock now. */
export async function isWaiting(db: SqlDatabase, pid: number): Promise<boolean> {
  const rows = await db.query("select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'", [
    pid,
  ]);
  return rows.length > 0;
}

/**
 * When backend `pid`'s transaction ended, by its own record (pg_stat_activity.state_change once it is idle
 * again, out of any transaction). Polls up to `ms`.
 */
export async function transactionEnd(db: SqlDatabase, pid: number, ms = 15_000): Promise<Date> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const [row] = await db.query<{ state: string; state_change: Date }>(
      "select state, state_change from pg_stat_activity where pid = $1 and xact_start is null",
      [pid],
    );
    if (row?.state === "idle") return new Date(row.state_change);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`backend ${pid} was still in a transaction after ${ms} ms`);
}

/** How long after `deadline` the transaction ended, in ms (negative: before it). */
export function msPast(end: Date, deadline: string): number {
  return end.getTime() - new Date(deadline).getTime();
}
