/** The bench's report as Markdown: printed at the end of every run, and the block BENCHMARKS.md holds. */
import type { PerOrder } from "./cost_summary.ts";
import { type BenchResults, kb, type Target } from "./report.ts";
import { CLIENTS, SPREADS } from "./settings.ts";
import { cell, round } from "./stats.ts";

const _setting = (spread: string, clients: number) => `${spread}, ${clients} client${clients > 1 ? "s" : ""}`;
const _n = (value: number, digits: number) =>
  Number.isFinite(value)
    ? round(value, digits).toLocaleString("en-US", { maximumFractionDigits: digits })
    : "–";
const _wal = (p: PerOrder) => `${_n(p.walRecordBytes, 0)} / ${_n(p.walBytes, 0)}`;
const _targets = (targets: Target[]) =>
  targets.map((t) => `| ${t.name} | ${t.goal} | ${t.value} | ${t.met ? "met" : "**missed**"} |`);

/** The Markdown table block of BENCHMARKS.md. */
export function renderTable(r: BenchResults): string {
  const m = r.machine;
  const lines = [
    `Run of ${r.date} (${r.mode}: ${r.settings.runs} run(s) of ${r.settings.seconds} s per setting, cold start median of ${r.settings.coldStarts}${
      r.settings.sqlApplied ? `, **scratch SQL applied: ${r.settings.sqlApplied}**` : ""
    }). Figures: median (min–max).`,
    "",
    `Machine: ${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB; load average at start ${m.loadAverageAtStart}, at end ${m.loadAverageAtEnd}; Deno ${m.deno}; ${m.postgres}; database pool of the stand-in: ${r.settings.poolSize}.`,
    "",
    "| target | goal | this run | |",
    "|---|---|---|---|",
    ..._targets(r.targets),
    "",
    "| setting | pgbench tps | service orders/s | p50 ms | p99 ms |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const spread of SPREADS) {
    for (const clients of CLIENTS) {
      const s = r.service[spread][clients];
      lines.push(
        `| ${_setting(spread, clients)} | ${cell(r.pgbenchTps[spread][clients])} | ${cell(s.perSecond)} | ${
          cell(s.p50Ms, 1)
        } | ${cell(s.p99Ms, 1)} |`,
      );
    }
  }
  lines.push(
    "",
    "Cost per order by setting (the setting's runs summed, divided by their orders). WAL in bytes, without /",
    "with full-page images; transactions of the bench database (pgbench's include the one each client spends",
    "preparing each script it uses, up to 80 per client); the stand-in's RPC calls in brackets; CPU of each",
    "service process; peak RSS of the function / the stand-in.",
    "",
    "| setting | pgbench WAL B | pgbench transactions | service WAL B | service transactions (RPC calls) | function CPU ms | stand-in CPU ms | fake Resend CPU ms | peak RSS MiB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const spread of SPREADS) {
    for (const clients of CLIENTS) {
      const p = r.pgbenchCost.bySetting[spread][clients];
      const s = r.serviceCost.bySetting[spread][clients];
      lines.push(
        `| ${_setting(spread, clients)} | ${_wal(p)} | ${_n(p.transactions, 3)} | ${_wal(s)} | ${
          _n(s.transactions, 3)
        } (${_n(s.rpcCalls ?? NaN, 3)}) | ${_n(s.cpuMs.function, 3)} | ${_n(s.cpuMs["stand-in"], 3)} | ${
          _n(s.cpuMs["fake Resend"], 3)
        } | ${_n(s.peakRssMiB.function, 0)} / ${_n(s.peakRssMiB["stand-in"], 0)} |`,
      );
    }
  }
  lines.push(
    "",
    ..._tupleTable(r),
    "",
    ..._walTable(r),
    "",
    ..._walAtScaleTable(r),
    "",
    ..._overheads(r),
    "",
    "| ratio | value |",
    "|---|---:|",
  );
  lines.push(...Object.entries(r.ratios).map(([name, value]) => `| ${name} | ${value} |`));
  lines.push(
    "",
    "| check | goal | this run | |",
    "|---|---|---|---|",
    ..._targets(r.checks),
    "",
    "Commands:",
    "",
    ...r.commands.map((c) => `    ${c}`),
  );
  return lines.join("\n");
}

/** Heap tuples written per order, by table, over all runs of each load. */
function _tupleTable(r: BenchResults): string[] {
  const pg = r.pgbenchCost.all;
  const svc = r.serviceCost.all;
  const tables = [...new Set([...Object.keys(pg.tables), ...Object.keys(svc.tables)])].sort();
  const cells = (p: PerOrder, table: string) => {
    const t = p.tables[table];
    if (!t) return "0 | 0";
    const deleted = t.deleted ? `, deleted ${_n(t.deleted, 3)}` : "";
    return `${_n(t.inserted, 3)} | ${_n(t.updated, 3)} (HOT ${_n(t.hotUpdated, 3)})${deleted}`;
  };
  return [
    "Heap tuples written per order (pg_stat_user_tables deltas over all runs of each load):",
    "",
    "| table | pgbench inserted | pgbench updated | service inserted | service updated |",
    "|---|---:|---:|---:|---:|",
    ...tables.map((table) => `| ${table} | ${cells(pg, table)} | ${cells(svc, table)} |`),
    `| **all tables: inserted + updated** | ${_n(pg.tuplesWritten, 3)} | | ${_n(svc.tuplesWritten, 3)} | |`,
  ];
}

/**
 * The bench database's WAL per order by record kind and by relation, over all runs of each load, the
 * largest without images first.
 */
function _walTable(r: BenchResults): string[] {
  type Group = Record<string, { bytes: number; fpiBytes: number; records: number }>;
  const rows = (pg: Group, svc: Group) => {
    const own = (k?: { bytes: number; fpiBytes: number }) => (k ? k.bytes - k.fpiBytes : 0);
    const keys = [...new Set([...Object.keys(pg), ...Object.keys(svc)])]
      .sort((a, b) => own(svc[b]) - own(svc[a]) || own(pg[b]) - own(pg[a]) || a.localeCompare(b));
    const cells = (k?: { bytes: number; fpiBytes: number; records: number }) =>
      k ? `${_n(k.bytes - k.fpiBytes, 0)} | ${_n(k.fpiBytes, 0)} | ${_n(k.records, 2)}` : "0 | 0 | 0";
    return keys.map((key) => `| ${key} | ${cells(pg[key])} | ${cells(svc[key])} |`);
  };
  const header = (what: string) => [
    `| ${what} | pgbench B without images | images B | pgbench records | service B without images | images B | service records |`,
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  return [
    "WAL records of the bench database per order (pg_walinspect, all runs of each load; bytes as laid out, page",
    "headers apart), by kind and by the relation of the record's first block:",
    "",
    ...header("record"),
    ...rows(r.pgbenchCost.all.walByKind, r.serviceCost.all.walByKind),
    "",
    ...header("relation"),
    ...rows(r.pgbenchCost.all.walByRelation ?? {}, r.serviceCost.all.walByRelation ?? {}),
  ];
}

/**
 * WAL per order right after a checkpoint at 0 and at 100,000 orders, by the relation of the record's first
 * block, the most images at scale first.
 */
function _walAtScaleTable(r: BenchResults): string[] {
  const { atZero, atScale } = r.walAtScale;
  const names = [...new Set([...Object.keys(atZero.byRelation), ...Object.keys(atScale.byRelation)])]
    .sort((a, b) =>
      (atScale.byRelation[b]?.fpiBytes ?? 0) - (atScale.byRelation[a]?.fpiBytes ?? 0) || a.localeCompare(b)
    );
  const cells = (k?: { bytes: number; fpiBytes: number }) =>
    k ? `${_n(k.bytes - k.fpiBytes, 0)} | ${_n(k.fpiBytes, 0)}` : "0 | 0";
  return [
    `WAL per order right after a checkpoint, pgbench \`create_order\` (${r.walAtScale.ordersPerSpan} orders at ${r.walAtScale.clients} clients`,
    `per span, bench/wal_at_scale.ts), by the relation of the record's first block: at ${
      _n(atZero.existingOrders, 0)
    } orders and at ${_n(atScale.existingOrders, 0)}:`,
    "",
    `| relation | at ${_n(atZero.existingOrders, 0)}: B without images | images B | at ${
      _n(atScale.existingOrders, 0)
    }: B without images | images B |`,
    "|---|---:|---:|---:|---:|",
    ...names.map((name) =>
      `| ${name} | ${cells(atZero.byRelation[name])} | ${cells(atScale.byRelation[name])} |`
    ),
    `| **all** (LSN delta, page headers included) | ${_n(atZero.recordBytes, 0)} | ${
      _n(atZero.fpiBytes, 0)
    } | ${_n(atScale.recordBytes, 0)} | ${_n(atScale.fpiBytes, 0)} |`,
  ];
}

function _overheads(r: BenchResults): string[] {
  const cold = r.coldStartMs;
  return [
    "| overhead | figure |",
    "|---|---:|",
    `| handler alone (in-memory store), req/s at 32 | ${cell(r.handlerOnly.perSecond)} (p50 ${
      cell(r.handlerOnly.p50Ms, 2)
    } ms, p99 ${cell(r.handlerOnly.p99Ms, 2)} ms) |`,
    `| hello-world Deno.serve, req/s at 32 | ${cell(r.helloWorld.perSecond)} (p50 ${
      cell(r.helloWorld.p50Ms, 2)
    } ms, p99 ${cell(r.helloWorld.p99Ms, 2)} ms) |`,
    `| cold start, hello world | ${cell(cold.helloWorld)} ms |`,
    `| cold start, trivial server with the same imports (supabase-js, zod) | ${cell(cold.sameImports)} ms |`,
    `| cold start, create-order function (index.ts) | ${cell(cold.function)} ms |`,
    `| cold start, create-order function bundled (deno bundle, ${kb(r.settings.bundleBytes)} KB) | ${
      cell(cold.functionBundled)
    } ms |`,
    `| cold start, whole local stack (dev_server.ts) | ${cell(cold.localStack)} ms |`,
    ...Object.entries(r.peakRssAt32).map(([name, s]) =>
      `| peak RSS of the ${name}, 32 connections | ${cell(s)} MiB |`
    ),
    `| RPC calls of the service | create_order ${r.rpc.createOrderCalls} (${
      r.rpc.storeBusy ?? 0
    } of them refused STORE_BUSY and made again) for ${r.rpc.orders} orders; ${
      Object.entries(r.rpc.otherCalls).map(([fn, n]) => `${fn} ${n}`).join(", ") || "no other"
    }; e-mails accepted by the fake Resend ${r.emailsSent} |`,
    `| transactions of each statistics reader (subtracted) | ${r.settings.readerTransactions} |`,
  ];
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
