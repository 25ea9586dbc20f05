/** A run's ratios, and the targets and checks it met or missed. */
import type { PerOrder } from "./cost_summary.ts";
import { type BenchResults, kb, pgbenchBest, type Target } from "./report.ts";
import { round } from "./stats.ts";
import type { WalAtScale } from "./wal_at_scale.ts";

/** The ratios, targets and checks of a run, from its figures. */
export function judge(
  r: Omit<BenchResults, "ratios" | "targets" | "checks">,
): Pick<BenchResults, "ratios" | "targets" | "checks"> {
  const best = pgbenchBest(r);
  const spread32 = r.service["10 stores"][32];
  const hot32 = r.service["1 store"][32];
  const cold = r.coldStartMs;
  const ratios = {
    servicePerPgbenchBest: round(spread32.perSecond.median / best.tps, 3),
    hotPerSpreadService: round(hot32.perSecond.median / spread32.perSecond.median, 3),
    hotPerSpreadPgbench: round(r.pgbenchTps["1 store"][32].median / r.pgbenchTps["10 stores"][32].median, 3),
    p99PerP50At32: round(spread32.p99Ms.median / spread32.p50Ms.median, 2),
    coldStartFunctionPerSameImports: round(cold.function.median / cold.sameImports.median, 2),
    coldStartBundledPerSameImports: round(cold.functionBundled.median / cold.sameImports.median, 2),
    coldStartSameImportsPerHello: round(cold.sameImports.median / cold.helloWorld.median, 2),
    coldStartFunctionPerHello: round(cold.function.median / cold.helloWorld.median, 2),
    coldStartStackPerHello: round(cold.localStack.median / cold.helloWorld.median, 2),
    handlerPerHello: round(r.handlerOnly.perSecond.median / r.helloWorld.perSecond.median, 3),
  };
  const pg = r.pgbenchCost.all;
  const svc = r.serviceCost.all;
  const ordersUpdates = (p: PerOrder) => p.tables.orders ?? { updated: 0, hotUpdated: 0 };
  const fnRss = r.peakRssAt32.function?.max ?? NaN;
  const targets: Target[] = [
    {
      name: "WAL per order (pgbench `create_order`), full-page images apart",
      goal: "≤ 3.0 KB",
      value: _walValue(pg),
      met: pg.walRecordBytes <= 3.0 * 1024,
    },
    {
      name: "WAL per order through the service (e-mail results included), full-page images apart",
      goal: "≤ 4.5 KB",
      value: _walValue(svc),
      met: svc.walRecordBytes <= 4.5 * 1024,
    },
    {
      name:
        "WAL per order at 100,000 orders right after a checkpoint (pgbench `create_order`), full-page images included",
      goal: "≤ 6 KB",
      value: walAtScaleValue(r.walAtScale),
      met: r.walAtScale.atScale.walBytes <= 6 * 1024,
    },
    {
      name: "updates of `orders` per created order",
      goal: "0",
      value:
        `pgbench ${round(ordersUpdates(pg).updated, 3)} (HOT ${round(ordersUpdates(pg).hotUpdated, 3)}), ` +
        `service ${round(ordersUpdates(svc).updated, 3)} (HOT ${round(ordersUpdates(svc).hotUpdated, 3)})`,
      met: ordersUpdates(pg).updated === 0 && ordersUpdates(svc).updated === 0,
    },
    {
      name: "database transactions per order on the request path (service)",
      goal: "≤ 1.1",
      value: `${round(svc.transactions, 3)} (the stand-in's RPC calls per order ${
        round(svc.rpcCalls ?? NaN, 3)
      }; autovacuum runs in the windows ${svc.autovacuums})`,
      met: svc.transactions <= 1.1,
    },
    {
      name: "function process CPU per order (stand-in apart)",
      goal: "≤ 0.5 ms",
      value: `${round(svc.cpuMs.function, 3)} ms (stand-in ${
        round(svc.cpuMs["stand-in"], 3)
      } ms, fake Resend ${round(svc.cpuMs["fake Resend"], 3)} ms)`,
      met: svc.cpuMs.function <= 0.5,
    },
    {
      name: "function process peak RSS at 32 connections",
      goal: "≤ 150 MB",
      value: `${round(fnRss, 0)} MiB = ${round(fnRss * 1.048576, 0)} MB (stand-in ${
        round(r.peakRssAt32["stand-in"]?.max ?? NaN, 0)
      } MiB)`,
      met: fnRss * 1.048576 <= 150,
    },
    {
      name: "function cold start ÷ trivial server with the same imports",
      goal: "≤ 1.2",
      value: `${ratios.coldStartFunctionPerSameImports} (${round(cold.function.median, 0)} / ${
        round(cold.sameImports.median, 0)
      } ms); bundled ${ratios.coldStartBundledPerSameImports} (${round(cold.functionBundled.median, 0)} ms)`,
      met: ratios.coldStartFunctionPerSameImports <= 1.2,
    },
    {
      name: "service orders/s at 32 connections ÷ pgbench best",
      goal: "≥ 0.5",
      value: `${ratios.servicePerPgbenchBest} (${round(spread32.perSecond.median, 0)} / ${
        round(best.tps, 0)
      } at ${best.clients})`,
      met: ratios.servicePerPgbenchBest >= 0.5,
    },
    {
      name: "one hot store ÷ ten stores (service, 32 connections)",
      goal: "≥ 0.7",
      value: String(ratios.hotPerSpreadService),
      met: ratios.hotPerSpreadService >= 0.7,
    },
  ];
  const shares = [pg.walOwnShare, svc.walOwnShare];
  const checks: Target[] = [
    { name: "synchronous_commit", goal: "on", value: "on (checked)", met: true },
    {
      name: "create_order calls per order on the RPC route, STORE_BUSY tries apart",
      goal: "exactly 1",
      value: `${r.rpc.createOrderCalls - (r.rpc.storeBusy ?? 0)} calls (+${
        r.rpc.storeBusy ?? 0
      } STORE_BUSY) / ${r.rpc.orders} orders`,
      met: r.rpc.ok,
    },
    {
      name: "e-mails accepted by the fake Resend",
      goal: "2 per order",
      value: `${r.emailsSent} for ${r.rpc.orders} orders`,
      met: r.emailsSent === 2 * r.rpc.orders,
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
      name: "statistics complete after every run (orders' n_tup_ins = rows)",
      goal: "yes",
      value: pg.complete && svc.complete ? "yes" : "no: the tuple and transaction figures are short",
      met: pg.complete && svc.complete,
    },
    {
      name: "WAL records read back and attributed to the bench database",
      goal: "every run",
      value: shares.includes(null)
        ? "no: WAL figures are the cluster's LSN deltas"
        : `yes; its smallest share of the cluster's WAL in a run ${
          round(Math.min(...shares as number[]) * 100, 1)
        } %`,
      met: !shares.includes(null),
    },
  ];
  return { ratios, targets, checks };
}

/** The WAL cell: the records alone (what the target judges), then with the images and what drove them. */
function _walValue(p: PerOrder): string {
  const checkpoints = p.walOtherCheckpoints === null
    ? ""
    : `; other checkpoints inside the runs ${p.walOtherCheckpoints}`;
  return `${kb(p.walRecordBytes)} KB (with full-page images ${
    kb(p.walBytes)
  } KB; ${p.orders} orders in ${p.runs} runs${checkpoints})`;
}

/** The WAL-at-scale cell: with the images at 100,000 orders, then without, then at 0 orders and how. */
export function walAtScaleValue(w: WalAtScale): string {
  const settings = Object.entries(w.settings).map(([name, s]) => `${name} ${s.value}`).join(", ");
  const defaults = Object.values(w.settings).every((s) => s.isDefault)
    ? "PostgreSQL's defaults"
    : "**not** the defaults";
  const checkpoints = (f: WalAtScale["atZero"]) => f.otherCheckpoints ?? "unread";
  return `${kb(w.atScale.walBytes)} KB (without images ${
    kb(w.atScale.recordBytes)
  } KB; at ${w.atZero.existingOrders} orders ${kb(w.atZero.walBytes)} / ${
    kb(w.atZero.recordBytes)
  } KB; ${w.ordersPerSpan} orders per span at ${w.clients} clients; other checkpoints inside ${
    checkpoints(w.atZero)
  } / ${checkpoints(w.atScale)}; ${settings}: ${defaults})`;
}
