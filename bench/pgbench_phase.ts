/**
 * The limit: pgbench calling create_order directly at each setting, each run inside a cost window
 * (WAL, transactions and tuples of the bench database per order).
 */
import type { Spread } from "./catalogue.ts";
import type { CostMeter, RunCost } from "./cost_window.ts";
import { refusedTries, runPgbench, writePgbenchScripts } from "./pgbench.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { bySetting, CLIENTS, SPREADS } from "./settings.ts";
import { type Spread3, summarize } from "./stats.ts";

/** pgbench's figures by spread and clients. */
export interface PgbenchPhase {
  tps: Record<Spread, Record<number, Spread3>>;
  costs: Record<Spread, Record<number, RunCost[]>>;
}

/** `runs` rounds of every setting, `seconds` each, against the database at `url`. */
export async function runPgbenchPhase(options: {
  url: string;
  /** The bench database, for the tries STORE_BUSY refused. */
  db: SqlDatabase;
  dir: string;
  runs: number;
  seconds: number;
  meter: CostMeter;
  log: (line: string) => void;
}): Promise<PgbenchPhase> {
  const { url, dir, runs, seconds, meter, log } = options;
  const scripts = {} as Record<Spread, string[]>;
  for (const spread of SPREADS) scripts[spread] = await writePgbenchScripts(dir, spread);
  const tps = new Map<string, number[]>();
  const costs = new Map<string, RunCost[]>();
  let snapshot = await meter.snapshot();
  for (let run = 0; run < runs; run++) {
    for (const spread of SPREADS) {
      for (const clients of CLIENTS) {
        const refusedBefore = await refusedTries(options.db);
        const window = await meter.start(snapshot, []);
        const result = await runPgbench(url, scripts[spread], clients, seconds);
        const finished = await window.finish();
        snapshot = finished.snapshot;
        if (result.failed > 0) throw new Error(`pgbench: ${result.failed} create_order calls failed`);
        const key = `${spread}/${clients}`;
        tps.set(key, [...tps.get(key) ?? [], result.tps]);
        costs.set(key, [...costs.get(key) ?? [], finished.cost]);
        const c = finished.cost;
        log(
          `pgbench ${spread}, ${clients} clients: ${result.tps.toFixed(0)} tps; ${c.orders} orders, WAL ${
            (c.wal.ownBytes / c.orders).toFixed(0)
          } B/order, ${(c.transactions / c.orders).toFixed(3)} transactions/order, ${
            (await refusedTries(options.db)) - refusedBefore
          } tries refused STORE_BUSY`,
        );
      }
    }
  }
  return {
    tps: bySetting((key) => summarize(tps.get(key)!)),
    costs: bySetting((key) => costs.get(key)!),
  };
}
