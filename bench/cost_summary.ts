/** Per-order figures from the runs' costs: sums over the runs divided by the orders they created. */
import type { RunCost } from "./cost_window.ts";
import type { TupleCounters } from "./database_counters.ts";

/** What an order cost over a set of runs. */
export interface PerOrder {
  runs: number;
  orders: number;
  /** The bench database's WAL bytes per order (cluster LSN delta x its share of the records). */
  walBytes: number;
  /** Of which full-page images. */
  walFpiBytes: number;
  /** walBytes without the full-page images: what the order's own records take. */
  walRecordBytes: number;
  /** The bench database's WAL records per order by kind ("Heap INSERT", ...): bytes, image bytes, count. */
  walByKind: Record<string, { bytes: number; fpiBytes: number; records: number }>;
  /** The same by relation (table or index; "(no block)" for commits), as walByKind. */
  walByRelation: Record<string, { bytes: number; fpiBytes: number; records: number }>;
  /** Checkpoints by others inside the runs (each brings a new round of images); null if unread in any. */
  walOtherCheckpoints: number | null;
  /** The smallest share of the cluster's WAL the bench database wrote in a run; null if unread in any. */
  walOwnShare: number | null;
  /** The bench database's transactions per order, the counter readers' subtracted. */
  transactions: number;
  /** Heap tuples written per order: inserted + updated over all tables. */
  tuplesWritten: number;
  /** Tuple counters per order, by table. */
  tables: Record<string, TupleCounters>;
  /** CPU ms per order, by process. */
  cpuMs: Record<string, number>;
  /** The highest peak RSS of a run, MiB, by process. */
  peakRssMiB: Record<string, number>;
  /** Autovacuum and autoanalyze runs finished in the windows (not subtracted from transactions). */
  autovacuums: number;
  /** Every run's statistics were complete. */
  complete: boolean;
  /** Service runs: the stand-in's RPC calls per order (all functions); null for pgbench. */
  rpcCalls: number | null;
}

/** Sums `costs` and divides by their orders. */
export function perOrder(costs: RunCost[]): PerOrder {
  const orders = costs.reduce((n, c) => n + c.orders, 0);
  const per = (total: number) => (orders > 0 ? total / orders : NaN);
  const sum = (pick: (c: RunCost) => number) => costs.reduce((n, c) => n + pick(c), 0);
  const tables: Record<string, TupleCounters> = {};
  for (const cost of costs) {
    for (const [table, d] of Object.entries(cost.tables)) {
      const t = tables[table] ??= { inserted: 0, updated: 0, hotUpdated: 0, deleted: 0 };
      t.inserted += d.inserted;
      t.updated += d.updated;
      t.hotUpdated += d.hotUpdated;
      t.deleted += d.deleted;
    }
  }
  let written = 0;
  for (const t of Object.values(tables)) {
    written += t.inserted + t.updated;
    t.inserted = per(t.inserted);
    t.updated = per(t.updated);
    t.hotUpdated = per(t.hotUpdated);
    t.deleted = per(t.deleted);
  }
  const walByKind = _walPerOrder(costs.map((c) => c.wal.ownByKind), per);
  // runs recorded before the relations were read have none
  const walByRelation = _walPerOrder(costs.map((c) => c.wal.ownByRelation ?? {}), per);
  const cpuMs: Record<string, number> = {};
  const peakRssMiB: Record<string, number> = {};
  for (const cost of costs) {
    for (const [name, seconds] of Object.entries(cost.cpuSeconds)) cpuMs[name] = (cpuMs[name] ?? 0) + seconds;
    for (const [name, mib] of Object.entries(cost.peakRssMiB)) {
      peakRssMiB[name] = Math.max(peakRssMiB[name] ?? 0, mib);
    }
  }
  for (const name of Object.keys(cpuMs)) cpuMs[name] = per(cpuMs[name] * 1000);
  const shares = costs.map((c) => c.wal.ownShare);
  const checkpoints = costs.map((c) => c.wal.otherCheckpoints);
  return {
    runs: costs.length,
    orders,
    walBytes: per(sum((c) => c.wal.ownBytes)),
    walFpiBytes: per(sum((c) => c.wal.ownFpiBytes)),
    walRecordBytes: per(sum((c) => c.wal.ownBytes - c.wal.ownFpiBytes)),
    walByKind,
    walByRelation,
    walOtherCheckpoints: checkpoints.includes(null) ? null : sum((c) => c.wal.otherCheckpoints!),
    walOwnShare: shares.some((s) => s === null) ? null : Math.min(...(shares as number[])),
    transactions: per(sum((c) => c.transactions)),
    tuplesWritten: per(written),
    tables,
    cpuMs,
    peakRssMiB,
    autovacuums: sum((c) => c.autovacuums),
    complete: costs.every((c) => c.complete),
    rpcCalls: costs.every((c) => c.rpcCalls)
      ? per(sum((c) => Object.values(c.rpcCalls!).reduce((a, b) => a + b, 0)))
      : null,
  };
}

/** Sums WAL groups (by kind or by relation) over runs and divides them by the orders. */
function _walPerOrder(
  groups: Record<string, { bytes: number; fpiBytes: number; records: number }>[],
  per: (total: number) => number,
): PerOrder["walByKind"] {
  const sums: PerOrder["walByKind"] = {};
  for (const group of groups) {
    for (const [key, k] of Object.entries(group)) {
      const w = sums[key] ??= { bytes: 0, fpiBytes: 0, records: 0 };
      w.bytes += k.bytes;
      w.fpiBytes += k.fpiBytes;
      w.records += k.records;
    }
  }
  for (const w of Object.values(sums)) {
    w.bytes = per(w.bytes);
    w.fpiBytes = per(w.fpiBytes);
    w.records = per(w.records);
  }
  return sums;
}
