/** The bench's figures, its targets (issue 5) met or missed, and the table BENCHMARKS.md holds. */
import type { Spread } from "./catalogue.ts";
import type { ColdStarts } from "./cold_start.ts";
import type { RpcCheck } from "./service_bench.ts";
import { cell, round, type Spread3 } from "./stats.ts";

/** Concurrencies of the pgbench and service runs. */
export const CLIENTS = [1, 8, 32] as const;
/** Both spreads, in table order. */
export const SPREADS: Spread[] = ["10 stores", "1 store"];

/** Latency and throughput of wrk runs at one setting. */
export interface HttpFigures {
  perSecond: Spread3;
  p50Ms: Spread3;
  p99Ms: Spread3;
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
    deno: string;
    postgres: string;
  };
  settings: {
    runs: number;
    seconds: number;
    coldStarts: number;
    sqlApplied: string | null;
    poolSize: string;
  };
  commands: string[];
  pgbenchTps: Record<Spread, Record<number, Spread3>>;
  service: Record<Spread, Record<number, HttpFigures>>;
  non200: number;
  socketErrors: number;
  rpc: RpcCheck;
  emailsSent: number;
  handlerOnly: HttpFigures;
  helloWorld: HttpFigures;
  coldStartMs: ColdStarts;
  peakRssMiB: Spread3;
  ratios: Record<string, number>;
  targets: Target[];
}

/** One target of issue 5. */
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

/** The ratios and targets of a run, from its figures. */
export function judge(r: Omit<BenchResults, "ratios" | "targets">): Pick<BenchResults, "ratios" | "targets"> {
  const best = pgbenchBest(r);
  const spread32 = r.service["10 stores"][32];
  const hot32 = r.service["1 store"][32];
  const ratios = {
    servicePerPgbenchBest: round(spread32.perSecond.median / best.tps, 3),
    hotPerSpreadService: round(hot32.perSecond.median / spread32.perSecond.median, 3),
    hotPerSpreadPgbench: round(r.pgbenchTps["1 store"][32].median / r.pgbenchTps["10 stores"][32].median, 3),
    p99PerP50At32: round(spread32.p99Ms.median / spread32.p50Ms.median, 2),
    coldStartFunctionPerHello: round(r.coldStartMs.function.median / r.coldStartMs.helloWorld.median, 2),
    coldStartStackPerHello: round(r.coldStartMs.localStack.median / r.coldStartMs.helloWorld.median, 2),
    handlerPerHello: round(r.handlerOnly.perSecond.median / r.helloWorld.perSecond.median, 3),
  };
  const targets: Target[] = [
    {
      name: "orders/s at 32 connections vs best pgbench tps",
      goal: "≥ 0.7",
      value: `${ratios.servicePerPgbenchBest} (${round(spread32.perSecond.median, 0)} / ${
        round(best.tps, 0)
      } at ${best.clients})`,
      met: ratios.servicePerPgbenchBest >= 0.7,
    },
    { name: "synchronous_commit", goal: "on", value: "on (checked)", met: true },
    {
      name: "create_order calls per order on the RPC route",
      goal: "exactly 1",
      value: `${r.rpc.createOrderCalls} calls / ${r.rpc.orders} orders`,
      met: r.rpc.ok,
    },
    {
      name: "non-200 answers",
      goal: "0",
      value: `${r.non200} (+${r.socketErrors} socket errors)`,
      met: r.non200 + r.socketErrors === 0,
    },
    {
      name: "p99 / p50 at 32 connections",
      goal: "≤ 5",
      value: String(ratios.p99PerP50At32),
      met: ratios.p99PerP50At32 <= 5,
    },
    {
      name: "one hot store vs 10 stores (service, 32 connections)",
      goal: "≥ 0.7",
      value: String(ratios.hotPerSpreadService),
      met: ratios.hotPerSpreadService >= 0.7,
    },
    {
      name: "cold start vs hello world (the function, index.ts)",
      goal: "≤ 2",
      value: `${ratios.coldStartFunctionPerHello} (${round(r.coldStartMs.function.median, 0)} / ${
        round(r.coldStartMs.helloWorld.median, 0)
      } ms)`,
      met: ratios.coldStartFunctionPerHello <= 2,
    },
    {
      name: "peak RSS of the service at 32 connections",
      goal: "≤ 150 MB",
      value: `${round(r.peakRssMiB.max, 0)} MiB`,
      met: r.peakRssMiB.max * 1.048576 <= 150,
    },
  ];
  return { ratios, targets };
}

/** The Markdown table block of BENCHMARKS.md. */
export function renderTable(r: BenchResults): string {
  const m = r.machine;
  const lines = [
    `Run of ${r.date} (${r.mode}: ${r.settings.runs} run(s) of ${r.settings.seconds} s per setting, cold start median of ${r.settings.coldStarts}${
      r.settings.sqlApplied ? `, **scratch SQL applied: ${r.settings.sqlApplied}**` : ""
    }). Figures: median (min–max).`,
    "",
    `Machine: ${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB; load average at start ${m.loadAverageAtStart}; Deno ${m.deno}; ${m.postgres}; database pool of the stand-in: ${r.settings.poolSize}.`,
    "",
    "| setting | pgbench tps | service orders/s | p50 ms | p99 ms |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const spread of SPREADS) {
    for (const clients of CLIENTS) {
      const s = r.service[spread][clients];
      lines.push(
        `| ${spread}, ${clients} client${clients > 1 ? "s" : ""} | ${cell(r.pgbenchTps[spread][clients])} | ${
          cell(s.perSecond)
        } | ${cell(s.p50Ms, 1)} | ${cell(s.p99Ms, 1)} |`,
      );
    }
  }
  lines.push(
    "",
    "| overhead | figure |",
    "|---|---:|",
    `| handler alone (in-memory store), req/s at 32 | ${cell(r.handlerOnly.perSecond)} (p50 ${
      cell(r.handlerOnly.p50Ms, 2)
    } ms, p99 ${cell(r.handlerOnly.p99Ms, 2)} ms) |`,
    `| hello-world Deno.serve, req/s at 32 | ${cell(r.helloWorld.perSecond)} (p50 ${
      cell(r.helloWorld.p50Ms, 2)
    } ms, p99 ${cell(r.helloWorld.p99Ms, 2)} ms) |`,
    `| cold start, hello world | ${cell(r.coldStartMs.helloWorld)} ms |`,
    `| cold start, create-order function (index.ts) | ${cell(r.coldStartMs.function)} ms |`,
    `| cold start, whole local stack (dev_server.ts) | ${cell(r.coldStartMs.localStack)} ms |`,
    `| peak RSS of the service, 32 connections | ${cell(r.peakRssMiB)} MiB |`,
    `| RPC calls of the service | create_order ${r.rpc.createOrderCalls} for ${r.rpc.orders} orders; ${
      Object.entries(r.rpc.otherCalls).map(([fn, n]) => `${fn} ${n}`).join(", ") || "no other"
    }; e-mails accepted by the fake Resend ${r.emailsSent} |`,
    "",
    "| ratio | value |",
    "|---|---:|",
    ...Object.entries(r.ratios).map(([name, value]) => `| ${name} | ${value} |`),
    "",
    "| target (issue 5) | goal | this run | |",
    "|---|---|---|---|",
    ...r.targets.map((t) => `| ${t.name} | ${t.goal} | ${t.value} | ${t.met ? "met" : "**missed**"} |`),
    "",
    "Commands:",
    "",
    ...r.commands.map((c) => `    ${c}`),
  );
  return lines.join("\n");
}

const START = "<!-- bench:table:start -->";
const END = "<!-- bench:table:end -->";

/** Replaces the generated block of BENCHMARKS.md (between its markers) with `table`. */
export async function rewriteBenchmarksMd(path: string, table: string): Promise<void> {
  const text = await Deno.readTextFile(path).catch(() => `# Benchmarks\n\n${START}\n${END}\n`);
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${START} ... ${END} block to rewrite`);
  await Deno.writeTextFile(path, `${text.slice(0, start + START.length)}\n${table}\n${text.slice(end)}`);
}
