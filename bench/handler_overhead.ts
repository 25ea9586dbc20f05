/** What our own code costs per request: a server alone (no database) under wrk at 32 connections. */
import { DEMO_KEYS } from "../local/stack.ts";
import { freePort, startDeno } from "./processes.ts";
import type { HttpFigures } from "./report.ts";
import { orderProbe } from "./service_bench.ts";
import { summarize } from "./stats.ts";
import { runWrk, writeWrkScript, type WrkResult } from "./wrk.ts";

/** Min/median/max of wrk runs' throughput and latencies. */
export const httpFigures = (results: WrkResult[]): HttpFigures => ({
  perSecond: summarize(results.map((r) => r.requestsPerSecond)),
  p50Ms: summarize(results.map((r) => r.p50Ms)),
  p99Ms: summarize(results.map((r) => r.p99Ms)),
});

/**
 * Starts `file` (hello_world.ts or handler_only.ts) on a free port, warms it for 1 s, then runs wrk with
 * the bench's orders `runs` times for `seconds` at 32 connections.
 */
export async function measureOverhead(file: string, dir: string, runs: number, seconds: number) {
  const port = freePort();
  const child = await startDeno(["--allow-net", "--allow-env", file], {
    PORT: String(port),
    SUPABASE_URL: "http://127.0.0.1:9",
    SUPABASE_ANON_KEY: DEMO_KEYS.anon,
    SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole,
  }, orderProbe(`http://127.0.0.1:${port}`));
  try {
    const script = `${dir}/overhead.lua`;
    await writeWrkScript(script, "10 stores", "/", DEMO_KEYS.anon);
    const url = `http://127.0.0.1:${port}`;
    await runWrk(url, script, 32, 1);
    const results: WrkResult[] = [];
    for (let run = 0; run < runs; run++) results.push(await runWrk(url, script, 32, seconds));
    return httpFigures(results);
  } finally {
    await child.stop();
  }
}
