/**
 * `deno task bench [--quick] [--apply <file.sql>]`: the whole benchmark in one run on this machine.
 * A throwaway database (`bench_<timestamp>` on the server at DATABASE_URL, with a meter database
 * beside it), pgbench's create_order as the physical limit, the service through HTTP with wrk (the
 * function and the stand-in each in its own process), each run's cost per order (WAL, transactions,
 * heap tuples, CPU and peak RSS per process), the handler alone, cold starts, WAL per order with
 * full-page images at 0 and 100,000 orders (in a database of its own: bench/wal_at_scale.ts), the outbox
 * drain's backlog after an outage (bench/backlog_drain.ts, each case in a database of its own); writes
 * bench/results/<date>.json, rewrites the table of BENCHMARKS.md (full runs), and ends with
 * `ratio service/pgbench-best: <number>`.
 *
 * --quick: one run of 3 s per setting; the full run does 3 runs of 10 s. WAL at scale is the same in both
 * (1,000 orders per span; about a minute).
 * --apply <file.sql>: runs that SQL after the migrations, to measure a proposed change in a scratch
 * database; the figures say so.
 */
import { createBenchDatabase } from "./bench_database.ts";
import { BUNDLE_ARGS, bundleFunction } from "./bundle_function.ts";
import { STORES } from "./catalogue.ts";
import { measureColdStarts } from "./cold_start.ts";
import { perOrder } from "./cost_summary.ts";
import { openCostMeter, type RunCost } from "./cost_window.ts";
import { judge } from "./judge.ts";
import { runPgbenchPhase } from "./pgbench_phase.ts";
import { httpFigures, measureOverhead } from "./handler_overhead.ts";
import { type BenchResults, type CostFigures, pgbenchBest } from "./report.ts";
import { renderTable, rewriteBenchmarksMd } from "./report_table.ts";
import { runBacklogPhase } from "./backlog_drain.ts";
import { startFakeResend, startService } from "./service_bench.ts";
import { runServicePhase } from "./service_phase.ts";
import { bySetting, CLIENTS, SPREADS } from "./settings.ts";
import { summarize } from "./stats.ts";
import { measureWalAtScale } from "./wal_at_scale.ts";
import { ensureWrk } from "./wrk.ts";

const args = Deno.args;
const quick = args.includes("--quick");
const applyIndex = args.indexOf("--apply");
const sqlApplied = applyIndex >= 0 ? args[applyIndex + 1] : null;
const RUNS = quick ? 1 : 3;
const SECONDS = quick ? 3 : 10;
const COLD_STARTS = 10;
const serverUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
const loadAverage = () => Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
const loadAtStart = loadAverage();

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
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: loadAverage(),
    deno: Deno.version.deno,
    postgres,
  };
}

const costFigures = (runs: CostFigures["runs"]): CostFigures => ({
  all: perOrder(SPREADS.flatMap((spread) => CLIENTS.flatMap((clients) => runs[spread][clients]))),
  bySetting: bySetting((key) => {
    const [spread, clients] = key.split("/") as [keyof typeof runs, string];
    return perOrder(runs[spread][Number(clients)]);
  }),
  runs,
});

log(`load average at start: ${loadAtStart}`);
const bench = await createBenchDatabase(serverUrl);
const dir = await Deno.makeTempDir({ prefix: "bench_" });
const children: { stop(): Promise<void> }[] = [];
let cleaning: Promise<void> | undefined;
// child processes, the databases and the temporary files go also when the run is interrupted
const cleanUp = () =>
  cleaning ??= (async () => {
    for (const child of children.reverse()) await child.stop().catch(() => {});
    await bench.drop();
    await Deno.remove(dir, { recursive: true });
  })();
const interrupted = () => cleanUp().finally(() => Deno.exit(130));
Deno.addSignalListener("SIGINT", interrupted);
Deno.addSignalListener("SIGTERM", interrupted);
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
  const bundle = await bundleFunction(dir);
  log(`function bundled: ${(bundle.bytes / 1024).toFixed(0)} KB`);
  const meter = await openCostMeter(bench);
  children.push({ stop: () => meter.close() });
  log(`each statistics reader adds ${meter.readerTransactions} transactions (subtracted from every run)`);

  // 1. the limit: pgbench calling create_order directly
  const pgbench = await runPgbenchPhase({
    url: bench.url,
    db: bench.db,
    dir,
    runs: RUNS,
    seconds: SECONDS,
    meter,
    log,
  });

  // 2. the service through HTTP: the function and the stand-in, each its own process
  const resend = await startFakeResend();
  children.push(resend);
  const service = await startService(bench.db, bench.url, resend.url, dir);
  children.push(service);
  log(`service up in ${service.function.readyMs.toFixed(0)} ms; warming up`);
  const served = await runServicePhase({
    db: bench.db,
    service,
    resend,
    runs: RUNS,
    seconds: SECONDS,
    warmUpSeconds: quick ? 2 : 5,
    meter,
    log,
  });

  // 3. cold starts (the lone function calls the running stand-in), then the service is stopped
  log("cold starts");
  const coldStartMs = await measureColdStarts(COLD_STARTS, {
    standinUrl: service.standinUrl,
    databaseUrl: bench.url,
    resendUrl: resend.url,
    bundlePath: bundle.path,
  });
  await service.stop();

  // 4. the handler alone vs hello world, same wrk script, 32 connections
  const helloWorld = await measureOverhead("bench/hello_world.ts", dir, RUNS, SECONDS);
  const handlerOnly = await measureOverhead("bench/handler_only.ts", dir, RUNS, SECONDS);
  log(
    `handler alone ${handlerOnly.perSecond.median.toFixed(0)} req/s, hello world ${
      helloWorld.perSecond.median.toFixed(0)
    } req/s`,
  );

  // 5. WAL per order with full-page images at 0 and 100,000 orders, in a database of its own
  const walAtScale = await measureWalAtScale({
    serverUrl,
    dir,
    sqlApplied,
    onDatabases: (drop) => children.push({ stop: drop }),
    log,
  });

  // 6. a backlog of e-mails drained at Resend's rate limit (the in-doubt one, sent alone, only in full runs)
  const backlogDrain = await runBacklogPhase(serverUrl, { emails: 2000, inDoubt: quick ? 0 : 200 }, log);

  const date = new Date().toISOString();
  const allWrk = SPREADS.flatMap((spread) => CLIENTS.flatMap((clients) => served.wrk[spread][clients]));
  const at32 = SPREADS.flatMap((spread) => served.costs[spread][32]);
  const peakAt32 = (name: string) => summarize(at32.map((c: RunCost) => c.peakRssMiB[name]));
  const figures: Omit<BenchResults, "ratios" | "targets" | "checks"> = {
    date,
    mode: quick ? "quick" : "full",
    machine: await machine(version),
    settings: {
      runs: RUNS,
      seconds: SECONDS,
      coldStarts: COLD_STARTS,
      sqlApplied,
      poolSize: "8 (bench/standin_server.ts, as local/dev_server.ts)",
      readerTransactions: meter.readerTransactions,
      bundleBytes: bundle.bytes,
    },
    commands: [
      `deno task bench${quick ? " --quick" : ""}${sqlApplied ? ` --apply ${sqlApplied}` : ""}`,
      `pgbench --no-vacuum --protocol=prepared --client=<1|8|32> --jobs=<1|2> --time=${SECONDS} -f create_order_<store>_<order>.sql@1 ... (one file per payload: select public.create_order('<payload>'::jsonb))`,
      `wrk --threads=<1|2> --connections=<1|8|32> --duration=${SECONDS}s --timeout=10s --script=orders.lua http://127.0.0.1:<port>/functions/v1/create-order`,
      "function: deno run --allow-net --allow-env supabase/functions/create-order/index.ts (DENO_SERVE_ADDRESS, SUPABASE_URL=<stand-in>, RESEND_BASE_URL=<fake>, RATE_LIMIT_PER_IP=0, RATE_LIMIT_PER_EMAIL=0)",
      "stand-in: deno run --allow-net --allow-env --allow-read bench/standin_server.ts (DATABASE_URL=<bench db>, POOL_SIZE=8)",
      `bundle: deno ${
        BUNDLE_ARGS.join(" ")
      } --output=<tmp>/create_order_bundle.js; run with deno run --allow-net --allow-env --no-config`,
    ],
    pgbenchTps: pgbench.tps,
    service: bySetting((key) => {
      const [spread, clients] = key.split("/") as [keyof typeof served.wrk, string];
      return httpFigures(served.wrk[spread][Number(clients)]);
    }),
    pgbenchCost: costFigures(pgbench.costs),
    serviceCost: costFigures(served.costs),
    peakRssAt32: { function: peakAt32("function"), "stand-in": peakAt32("stand-in") },
    non200: allWrk.reduce((n, r) => n + r.non200, 0),
    socketErrors: allWrk.reduce((n, r) => n + r.socketErrors, 0),
    rpc: served.rpc,
    emailsSent: served.emailsSent,
    handlerOnly,
    helloWorld,
    coldStartMs,
    walAtScale,
    backlogDrain,
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
  for (const b of backlogDrain) {
    console.log(
      `backlog ${b.case}: ${b.emails} e-mails in ${b.drainSeconds} s (${b.runs} runs), ${b.requests} requests, ` +
        `${b.rateLimited} 429s, ${b.duplicates} duplicates, ${b.left} left`,
    );
  }
  console.log(`ratio service/pgbench-best: ${results.ratios.servicePerPgbenchBest}`);
} finally {
  Deno.removeSignalListener("SIGINT", interrupted);
  Deno.removeSignalListener("SIGTERM", interrupted);
  await cleanUp();
}
