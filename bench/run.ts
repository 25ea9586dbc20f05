/**
 * `deno task bench [--quick] [--apply <file.sql>]`: issue 5's benchmark in one run on this machine.
 * A throwaway database (`bench_<timestamp>` on the server at DATABASE_URL), pgbench's create_order as
 * the physical limit, the service through HTTP with wrk, the handler alone, cold starts and memory;
 * writes bench/results/<date>.json, rewrites the table of BENCHMARKS.md (full runs), and ends with
 * `ratio service/pgbench-best: <number>`.
 *
 * --quick: one run of 3 s per setting (under 2 minutes); the full run does 3 runs of 10 s.
 * --apply <file.sql>: runs that SQL after the migrations, to measure a proposed change in a scratch
 * database; the figures say so.
 */
import { type Spread, STORES } from "./catalogue.ts";
import { createBenchDatabase } from "./bench_database.ts";
import { measureColdStarts } from "./cold_start.ts";
import { runPgbench, writePgbenchScripts } from "./pgbench.ts";
import { freePort, startDeno } from "./processes.ts";
import {
  type BenchResults,
  CLIENTS,
  type HttpFigures,
  judge,
  pgbenchBest,
  renderTable,
  rewriteBenchmarksMd,
  SPREADS,
} from "./report.ts";
import { checkOneCallPerOrder, orderProbe, startFakeResend, startService } from "./service_bench.ts";
import { type Spread3, summarize } from "./stats.ts";
import { ensureWrk, runWrk, writeWrkScript, type WrkResult } from "./wrk.ts";
import { DEMO_KEYS } from "../local/stack.ts";

const args = Deno.args;
const quick = args.includes("--quick");
const applyIndex = args.indexOf("--apply");
const sqlApplied = applyIndex >= 0 ? args[applyIndex + 1] : null;
const RUNS = quick ? 1 : 3;
const SECONDS = quick ? 3 : 10;
const COLD_STARTS = 10;
const serverUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

const _text = async (command: string, commandArgs: string[]) =>
  new TextDecoder().decode(
    (await new Deno.Command(command, { args: commandArgs, stdout: "piped" }).output()).stdout,
  )
    .trim();

async function machine(postgres: string): Promise<BenchResults["machine"]> {
  const cpuinfo = await Deno.readTextFile("/proc/cpuinfo");
  return {
    nproc: Number(await _text("nproc", [])),
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown",
    memoryGiB: Math.round(Deno.systemMemoryInfo().total / 2 ** 30),
    loadAverageAtStart: Deno.loadavg().map((n) => n.toFixed(2)).join(" "),
    deno: Deno.version.deno,
    postgres,
  };
}

const http = (results: WrkResult[]): HttpFigures => ({
  perSecond: summarize(results.map((r) => r.requestsPerSecond)),
  p50Ms: summarize(results.map((r) => r.p50Ms)),
  p99Ms: summarize(results.map((r) => r.p99Ms)),
});

const bench = await createBenchDatabase(serverUrl);
const dir = await Deno.makeTempDir({ prefix: "bench_" });
const children: { stop(): Promise<void> }[] = [];
try {
  log(`database ${bench.name}: migrated, ${STORES} stores x 20 products seeded`);
  if (sqlApplied) {
    await bench.db.exec(await Deno.readTextFile(sqlApplied));
    log(`applied scratch SQL ${sqlApplied}`);
  }
  const [{ synchronous_commit }] = await bench.db.query<{ synchronous_commit: string }>(
    "show synchronous_commit",
  );
  if (synchronous_commit !== "on") {
    throw new Error(`synchronous_commit is ${synchronous_commit}: it must stay on`);
  }
  const [{ version }] = await bench.db.query<{ version: string }>(
    "select split_part(version(), ' on ', 1) as version",
  );
  await ensureWrk(log);

  // 1. the limit: pgbench calling create_order directly
  const pgbenchScripts = Object.fromEntries(
    await Promise.all(SPREADS.map(async (spread) => [spread, await writePgbenchScripts(dir, spread)])),
  ) as Record<Spread, string[]>;
  const tps = new Map<string, number[]>();
  for (let run = 0; run < RUNS; run++) {
    for (const spread of SPREADS) {
      for (const clients of CLIENTS) {
        const result = await runPgbench(bench.url, pgbenchScripts[spread], clients, SECONDS);
        if (result.failed > 0) throw new Error(`pgbench: ${result.failed} create_order calls failed`);
        tps.set(`${spread}/${clients}`, [...tps.get(`${spread}/${clients}`) ?? [], result.tps]);
        log(`pgbench ${spread}, ${clients} clients: ${result.tps.toFixed(0)} tps`);
      }
    }
  }
  const pgbenchTps = Object.fromEntries(SPREADS.map((spread) => [
    spread,
    Object.fromEntries(CLIENTS.map((c) => [c, summarize(tps.get(`${spread}/${c}`)!)])),
  ])) as Record<Spread, Record<number, Spread3>>;

  // 2. the service through HTTP
  const resend = await startFakeResend();
  children.push(resend);
  const service = await startService(bench.db, bench.url, resend.url, dir);
  children.push(service.child);
  log(`service up in ${service.child.readyMs.toFixed(0)} ms; warming up`);
  await service.load("10 stores", 32, quick ? 2 : 5);
  const wrk = new Map<string, WrkResult[]>();
  const rss: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const spread of SPREADS) {
      for (const connections of CLIENTS) {
        const stopSampling = connections === 32 ? service.child.sampleRss() : null;
        const result = await service.load(spread, connections, SECONDS);
        if (stopSampling) rss.push(stopSampling());
        wrk.set(`${spread}/${connections}`, [...wrk.get(`${spread}/${connections}`) ?? [], result]);
        log(
          `service ${spread}, ${connections} connections: ${
            result.requestsPerSecond.toFixed(0)
          } orders/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-200 ${result.non200}`,
        );
      }
    }
  }
  const rpc = await checkOneCallPerOrder(bench.db, service);
  const emailsSent = (await (await fetch(`${resend.url}/__stats`)).json()).sent as number;
  log(
    `rpc: ${rpc.createOrderCalls} create_order calls for ${rpc.orders} orders (${
      rpc.ok ? "ok" : "MISMATCH"
    })`,
  );
  const allWrk = [...wrk.values()].flat();

  // 3. cold starts (the lone function calls the running stack), then the stack is stopped
  log("cold starts");
  const coldStartMs = await measureColdStarts(COLD_STARTS, service.url, bench.url, resend.url);
  await service.child.stop();

  // 4. the handler alone vs hello world, same wrk script, 32 connections
  const overhead = async (file: string) => {
    const port = freePort();
    const child = await startDeno(["--allow-net", "--allow-env", file], {
      PORT: String(port),
      SUPABASE_URL: "http://127.0.0.1:9",
      SUPABASE_ANON_KEY: DEMO_KEYS.anon,
      SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole,
    }, orderProbe(`http://127.0.0.1:${port}`));
    const script = `${dir}/overhead.lua`;
    await writeWrkScript(script, "10 stores", "/", DEMO_KEYS.anon);
    const url = `http://127.0.0.1:${port}`;
    await runWrk(url, script, 32, 1);
    const results: WrkResult[] = [];
    for (let run = 0; run < RUNS; run++) results.push(await runWrk(url, script, 32, SECONDS));
    await child.stop();
    return http(results);
  };
  const helloWorld = await overhead("bench/hello_world.ts");
  const handlerOnly = await overhead("bench/handler_only.ts");
  log(
    `handler alone ${handlerOnly.perSecond.median.toFixed(0)} req/s, hello world ${
      helloWorld.perSecond.median.toFixed(0)
    } req/s`,
  );

  const date = new Date().toISOString();
  const figures: Omit<BenchResults, "ratios" | "targets"> = {
    date,
    mode: quick ? "quick" : "full",
    machine: await machine(version),
    settings: {
      runs: RUNS,
      seconds: SECONDS,
      coldStarts: COLD_STARTS,
      sqlApplied,
      poolSize: "8 (local/dev_server.ts)",
    },
    commands: [
      `deno task bench${quick ? " --quick" : ""}${sqlApplied ? ` --apply ${sqlApplied}` : ""}`,
      `pgbench --no-vacuum --protocol=prepared --client=<1|8|32> --jobs=<1|2> --time=${SECONDS} -f create_order_<store>_<order>.sql@1 ... (one file per payload: select public.create_order('<payload>'::jsonb))`,
      `wrk --threads=<1|2> --connections=<1|8|32> --duration=${SECONDS}s --timeout=10s --script=orders.lua http://127.0.0.1:<port>/functions/v1/create-order`,
      "service: deno run --allow-net --allow-env --allow-read --allow-write --allow-sys local/dev_server.ts (DATABASE_URL=<bench db>, RESEND_BASE_URL=<fake>, RATE_LIMIT_PER_IP=0, RATE_LIMIT_PER_EMAIL=0)",
    ],
    pgbenchTps,
    service: Object.fromEntries(SPREADS.map((spread) => [
      spread,
      Object.fromEntries(CLIENTS.map((c) => [c, http(wrk.get(`${spread}/${c}`)!)])),
    ])) as Record<Spread, Record<number, HttpFigures>>,
    non200: allWrk.reduce((n, r) => n + r.non200, 0),
    socketErrors: allWrk.reduce((n, r) => n + r.socketErrors, 0),
    rpc,
    emailsSent,
    handlerOnly,
    helloWorld,
    coldStartMs,
    peakRssMiB: summarize(rss),
  };
  const results: BenchResults = { ...figures, ...judge(figures) };

  const name = `${date.slice(0, 10)}${quick ? "-quick" : ""}${sqlApplied ? "-scratch" : ""}`;
  await Deno.mkdir("bench/results", { recursive: true });
  await Deno.writeTextFile(`bench/results/${name}.json`, JSON.stringify(results, null, 2) + "\n");
  const table = renderTable(results);
  if (!quick && !sqlApplied) {
    await rewriteBenchmarksMd("BENCHMARKS.md", table);
    // the table as `deno fmt` lays it out, so the committed file passes `deno fmt --check`
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", "BENCHMARKS.md"] }).output();
  }
  console.log(table);
  console.log(`\nwritten: bench/results/${name}.json${!quick && !sqlApplied ? ", BENCHMARKS.md" : ""}`);
  const best = pgbenchBest(results);
  console.log(`pgbench best: ${best.tps.toFixed(0)} tps at ${best.clients} clients (10 stores)`);
  console.log(`ratio service/pgbench-best: ${results.ratios.servicePerPgbenchBest}`);
} finally {
  for (const child of children.reverse()) await child.stop().catch(() => {});
  await bench.drop();
  await Deno.remove(dir, { recursive: true });
}
