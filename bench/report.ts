/** The figures of one bench run, as bench/results/<date>.json holds them. */
import type { Spread } from "./catalogue.ts";
import type { ColdStarts } from "./cold_start.ts";
import type { PerOrder } from "./cost_summary.ts";
import type { RunCost } from "./cost_window.ts";
import type { RpcCheck } from "./service_bench.ts";
import type { WalAtScale } from "./wal_at_scale.ts";
import type { BacklogFigures } from "./backlog_drain.ts";
import { CLIENTS } from "./settings.ts";
import { round, type Spread3 } from "./stats.ts";

/** Latency and throughput of wrk runs at one setting. */
export interface HttpFigures {
  perSecond: Spread3;
  p50Ms: Spread3;
  p99Ms: Spread3;
}

/** Per-order costs: over all runs of a load, and by setting. */
export interface CostFigures {
  all: PerOrder;
  bySetting: Record<Spread, Record<number, PerOrder>>;
  /** Every run's raw cost, by setting. */
  runs: Record<Spread, Record<number, RunCost[]>>;
}

/** Everything one bench run measured. */
export interface BenchResults {
  date: string;
  mode: "full" | "quick";
  machine: {
    nproc: number;
    cpu: string;
    memoryGiB: number;
    loadAverageAtStart: string;
    loadAverageAtEnd: string;
    deno: string;
    postgres: string;
  };
  settings: {
    runs: number;
    seconds: number;
    coldStarts: number;
    sqlApplied: string | null;
    poolSize: string;
    /** Transactions each statistics reader adds to the bench database (subtracted). */
    readerTransactions: number;
    bundleBytes: number;
  };
  commands: string[];
  pgbenchTps: Record<Spread, Record<number, Spread3>>;
  service: Record<Spread, Record<number, HttpFigures>>;
  pgbenchCost: CostFigures;
  serviceCost: CostFigures;
  /** Peak RSS of each service process in the 32-connection runs, MiB. */
  peakRssAt32: Record<string, Spread3>;
  non200: number;
  socketErrors: number;
  rpc: RpcCheck;
  emailsSent: number;
  handlerOnly: HttpFigures;
  helloWorld: HttpFigures;
  coldStartMs: ColdStarts;
  /** WAL per order with full-page images, right after a checkpoint, at 0 and 100,000 orders. */
  walAtScale: WalAtScale;
  /** The outbox drain's backlog after an outage (bench/backlog_drain.ts), one entry per case. */
  backlogDrain?: BacklogFigures[];
  ratios: Record<string, number>;
  targets: Target[];
  checks: Target[];
}

/** One target or check: its goal, this run's value, met or not. */
export interface Target {
  name: string;
  goal: string;
  value: string;
  met: boolean;
}

/** The best pgbench tps of the 10-store spread (by median) and at how many clients. */
export function pgbenchBest(r: Pick<BenchResults, "pgbenchTps">): { clients: number; tps: number } {
  return CLIENTS.map((clients) => ({ clients, tps: r.pgbenchTps["10 stores"][clients].median }))
    .reduce((a, b) => (b.tps > a.tps ? b : a));
}

/** Bytes as KB (1 KB = 1,024 bytes, as PostgreSQL's pg_size_pretty counts). */
export const kb = (bytes: number) => round(bytes / 1024, 2);
