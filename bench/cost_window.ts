/**
 * The cost of one run, measured around it: WAL ({@linkcode openWalSpan}), the bench database's
 * transactions and tuples written ({@linkcode databaseCounters}), and for each tracked process its CPU
 * seconds and peak RSS. The caller starts a window, runs the load, waits until the run's work is done
 * (e-mail results included), and finishes the window.
 */
import postgres from "postgres";
import type { BenchDatabase } from "./bench_database.ts";
import { type CounterSnapshot, databaseCounters, type TupleCounters } from "./database_counters.ts";
import { rssMiB } from "./processes.ts";
import { clockTicksPerSecond, cpuTicks, peakRssSinceReset, resetPeakRss } from "./process_usage.ts";
import { openWalSpan, type WalUsage } from "./wal_window.ts";

/** A process whose CPU and memory a window measures. */
export interface Tracked {
  name: string;
  pid: number;
}

/** What one run cost. */
export interface RunCost {
  /** Orders created in the run (rows of public.orders). */
  orders: number;
  wal: WalUsage;
  /**
   * The bench database's transactions in the run, without the counter readers' and the start-up
   * transaction of each new session (pgbench's clients connect anew every run).
   */
  transactions: number;
  /** The transactions subtracted: the counter readers' and the other sessions' start-ups. */
  subtractedTransactions: number;
  /** Sessions started in the window other than the counter readers'. */
  sessions: number;
  /** Autovacuum and autoanalyze runs that finished on the bench tables in the window. */
  autovacuums: number;
  /** Tuple counter deltas by table (tables with none left out). */
  tables: Record<string, TupleCounters>;
  /** CPU seconds (user + system) of each tracked process in the window. */
  cpuSeconds: Record<string, number>;
  /** Peak RSS of each tracked process in the window, MiB. */
  peakRssMiB: Record<string, number>;
  /** False when the statistics were short at the end (see CounterSnapshot.complete). */
  complete: boolean;
  /** Service runs: the calls per function the stand-in's RPC route took in the window. */
  rpcCalls?: Record<string, number>;
}

/** A window being measured. */
export interface CostWindow {
  /** Ends the window (after the run's work is done); `snapshot` can start the next window. */
  finish(): Promise<{ cost: RunCost; snapshot: CounterSnapshot }>;
}

/** Measures runs against one bench database. */
export interface CostMeter {
  /** Transactions each counter reader adds (subtracted from every run). */
  readerTransactions: number;
  /** A settled snapshot to start the next window from. */
  snapshot(): Promise<CounterSnapshot>;
  /** Starts a window from `from` (a snapshot with no bench database work since). */
  start(from: CounterSnapshot, processes: Tracked[]): Promise<CostWindow>;
  close(): Promise<void>;
}

/** Opens the meter session (on the bench's meter database) and measures the readers' own transactions. */
export async function openCostMeter(bench: BenchDatabase): Promise<CostMeter> {
  const meter = postgres(bench.meterUrl, { max: 1, onnotice: () => {}, idle_timeout: 0, max_lifetime: null });
  const counters = databaseCounters(meter, bench.url, bench.name);
  const ticks = await clockTicksPerSecond();
  const relationNames = await readRelationNames(bench.url);
  const readerTransactions = await counters.calibrate();
  return {
    readerTransactions,
    snapshot: () => counters.snapshot(),
    async start(from, processes) {
      const wal = await openWalSpan(meter, bench.oid, relationNames);
      const cpuBefore = processes.map((p) => cpuTicks(p.pid));
      const resets = processes.map((p) => resetPeakRss(p.pid));
      const sampled = processes.map((p) => rssMiB(p.pid));
      const timer = setInterval(() => {
        processes.forEach((p, i) => sampled[i] = Math.max(sampled[i], rssMiB(p.pid)));
      }, 50);
      return {
        async finish() {
          const end = await wal.end();
          clearInterval(timer);
          const cpuSeconds: Record<string, number> = {};
          const peakRssMiB: Record<string, number> = {};
          processes.forEach((p, i) => {
            cpuSeconds[p.name] = (cpuTicks(p.pid) - cpuBefore[i]) / ticks;
            const highWater = resets[i] ? peakRssSinceReset(p.pid) : 0;
            peakRssMiB[p.name] = Math.max(sampled[i], rssMiB(p.pid), highWater);
          });
          const snapshot = await counters.snapshot();
          const readers = snapshot.readerSessions - from.readerSessions;
          const sessions = snapshot.sessions - from.sessions - readers;
          // a reader runs one statement: the rest of its transactions is what any session's start-up costs
          const subtracted = readers * readerTransactions + sessions * (readerTransactions - 1);
          const cost: RunCost = {
            orders: snapshot.orders - from.orders,
            wal: await wal.close(end),
            transactions: snapshot.transactions - from.transactions - subtracted,
            subtractedTransactions: subtracted,
            sessions,
            autovacuums: snapshot.autovacuums - from.autovacuums,
            tables: _tableDeltas(from.tables, snapshot.tables),
            cpuSeconds,
            peakRssMiB,
            complete: snapshot.complete,
          };
          return { cost, snapshot };
        },
      };
    },
    close: () => meter.end({ timeout: 5 }),
  };
}

function _tableDeltas(
  before: Record<string, TupleCounters>,
  after: Record<string, TupleCounters>,
): Record<string, TupleCounters> {
  const deltas: Record<string, TupleCounters> = {};
  for (const [table, a] of Object.entries(after)) {
    const b = before[table] ?? { inserted: 0, updated: 0, hotUpdated: 0, deleted: 0 };
    const d = {
      inserted: a.inserted - b.inserted,
      updated: a.updated - b.updated,
      hotUpdated: a.hotUpdated - b.hotUpdated,
      deleted: a.deleted - b.deleted,
    };
    if (d.inserted || d.updated || d.deleted) deltas[table] = d;
  }
  return deltas;
}

/**
 * The bench database's tables, indexes, sequences and TOAST tables by relfilenode (what WAL records name),
 * read once before any run: nothing in a run rewrites a relation. A session of its own, closed before the
 * counters are calibrated, so no run counts it.
 */
export async function readRelationNames(benchUrl: string): Promise<Record<string, string>> {
  const sql = postgres(benchUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql.unsafe<{ node: string; name: string }[]>(
      `select c.relfilenode::text as node, c.relname::text as name
       from pg_class c where c.relnamespace = 'public'::regnamespace and c.relfilenode <> 0
       union all
       select t.relfilenode::text, c.relname || ' (TOAST)'
       from pg_class c join pg_class t on t.oid = c.reltoastrelid
       where c.relnamespace = 'public'::regnamespace`,
    );
    return Object.fromEntries(rows.map((row) => [row.node, row.name]));
  } finally {
    await sql.end();
  }
}
