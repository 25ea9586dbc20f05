/**
 * The service through HTTP: wrk against the function at each setting, each run inside a cost window
 * that closes once the run's e-mails and their recorded results are done, tracking the function, the
 * stand-in and the fake Resend, each its own process.
 */
import type { SqlDatabase } from "../local/sql_database.ts";
import type { Spread } from "./catalogue.ts";
import type { CostMeter, RunCost, Tracked } from "./cost_window.ts";
import { checkOneCallPerOrder, type RpcCheck, type Service } from "./service_bench.ts";
import { bySetting, CLIENTS, SPREADS } from "./settings.ts";
import type { WrkResult } from "./wrk.ts";

/** The service's figures by spread and connections. */
export interface ServicePhase {
  wrk: Record<Spread, Record<number, WrkResult[]>>;
  costs: Record<Spread, Record<number, RunCost[]>>;
  rpc: RpcCheck;
  emailsSent: number;
}

/** A warm-up, then `runs` rounds of every setting, `seconds` each. */
export async function runServicePhase(options: {
  db: SqlDatabase;
  service: Service;
  resend: { pid: number; url: string };
  runs: number;
  seconds: number;
  warmUpSeconds: number;
  meter: CostMeter;
  log: (line: string) => void;
}): Promise<ServicePhase> {
  const { service, runs, seconds, meter, log } = options;
  const processes: Tracked[] = [
    { name: "function", pid: service.function.pid },
    { name: "stand-in", pid: service.standin.pid },
    { name: "fake Resend", pid: options.resend.pid },
  ];
  await service.load("10 stores", 32, options.warmUpSeconds);
  await service.drain();
  const wrk = new Map<string, WrkResult[]>();
  const costs = new Map<string, RunCost[]>();
  let snapshot = await meter.snapshot();
  for (let run = 0; run < runs; run++) {
    for (const spread of SPREADS) {
      for (const connections of CLIENTS) {
        const callsBefore = await service.rpcCalls();
        const window = await meter.start(snapshot, processes);
        const result = await service.load(spread, connections, seconds);
        await service.drain();
        const finished = await window.finish();
        snapshot = finished.snapshot;
        const callsAfter = await service.rpcCalls();
        finished.cost.rpcCalls = Object.fromEntries(
          Object.entries(callsAfter).map(([fn, n]) => [fn, n - (callsBefore[fn] ?? 0)]),
        );
        const key = `${spread}/${connections}`;
        wrk.set(key, [...wrk.get(key) ?? [], result]);
        costs.set(key, [...costs.get(key) ?? [], finished.cost]);
        const c = finished.cost;
        const ms = (name: string) => ((c.cpuSeconds[name] * 1000) / c.orders).toFixed(2);
        log(
          `service ${spread}, ${connections} connections: ${
            result.requestsPerSecond.toFixed(0)
          } orders/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-200 ${result.non200}; WAL ${
            (c.wal.ownBytes / c.orders).toFixed(0)
          } B/order, ${(c.transactions / c.orders).toFixed(3)} transactions/order, CPU ms/order function ${
            ms("function")
          } stand-in ${ms("stand-in")}, peak RSS function ${c.peakRssMiB.function.toFixed(0)} MiB`,
        );
      }
    }
  }
  const rpc = await checkOneCallPerOrder(options.db, service);
  const emailsSent = (await (await fetch(`${options.resend.url}/__stats`)).json()).sent as number;
  log(
    `rpc: ${rpc.createOrderCalls} create_order calls (${rpc.storeBusy} refused STORE_BUSY) for ${rpc.orders} orders (${
      rpc.ok ? "ok" : "MISMATCH"
    })`,
  );
  return {
    wrk: bySetting((key) => wrk.get(key)!),
    costs: bySetting((key) => costs.get(key)!),
    rpc,
    emailsSent,
  };
}
