/**
 * WAL per order with full-page images, as a deployed database pays it: right after a checkpoint, under the
 * server's checkpoint settings, at 0 orders and at 100,000 existing orders. The first change to a page after
 * each checkpoint writes the whole page into the WAL; random keys scatter each order's index entries over
 * pages no recent order touched, so at scale those images, not the records, are most of an order's WAL
 * (issue 17). The bench's other windows judge the records "images apart": this phase is the cost with them.
 *
 * In its own database (`bench_<timestamp>_<pid>_scale`, the bench catalogue): a span (bench/wal_window.ts:
 * checkpoint, then LSNs and the database's own records) around 1,000 `create_order` calls by pgbench (8
 * clients x 125, the bench's payloads over 10 stores) on the empty database; then orders bulk-loaded
 * (bench/bulk_orders.ts) up to 100,000 and vacuumed; then the same span again. A span that another session's
 * checkpoint fell into (the server is shared) is measured again, up to three times.
 *
 * `deno run --allow-all bench/wal_at_scale.ts [--apply <file.sql>]` runs this phase alone (about a minute
 * here) and prints its figures; `deno task bench` (full and --quick alike) runs it last.
 */
import postgres, { type Sql } from "postgres";
import { createBenchDatabase } from "./bench_database.ts";
import { loadBulkOrders } from "./bulk_orders.ts";
import { readRelationNames } from "./cost_window.ts";
import { runPgbench, writePgbenchScripts } from "./pgbench.ts";
import { kb } from "./report.ts";
import { openWalSpan } from "./wal_window.ts";

/** The existing orders of the second span, and the orders each span creates. */
export const EXISTING_ORDERS = 100_000;
export const ORDERS_PER_SPAN = 1_000;
const CLIENTS = 8;
const ATTEMPTS = 3;

/** The settings that decide when pages need a new image, and PostgreSQL 15's defaults for them. */
const CHECKPOINT_SETTINGS: Record<string, string> = {
  checkpoint_timeout: "5min",
  max_wal_size: "1GB",
  full_page_writes: "on",
  wal_compression: "off",
};

/** One span: the orders it created and their WAL. */
export interface WalSpanFigures {
  /** Orders in the database when the span began. */
  existingOrders: number;
  orders: number;
  /** The bench database's WAL bytes per order, images included (LSN delta x its share of the records). */
  walBytes: number;
  /** Of which full-page images. */
  fpiBytes: number;
  /** Without the images. */
  recordBytes: number;
  /** Checkpoints of other sessions inside the span; null when the records could not be read back. */
  otherCheckpoints: number | null;
  /** Spans measured before this one, each with another session's checkpoint inside. */
  discarded: number;
  /** Per order by relation of the record's first block: bytes, of which images, records. */
  byRelation: Record<string, { bytes: number; fpiBytes: number; records: number }>;
}

/** What the phase measured. */
export interface WalAtScale {
  /** The server's settings (see CHECKPOINT_SETTINGS), and whether each is PostgreSQL's default. */
  settings: Record<string, { value: string; isDefault: boolean }>;
  ordersPerSpan: number;
  clients: number;
  atZero: WalSpanFigures;
  atScale: WalSpanFigures;
  /** Seconds the bulk load (and its vacuum) took. */
  loadSeconds: number;
}

/** Runs the phase on a fresh database of the server at `serverUrl`; pgbench's scripts go to `dir`. */
export async function measureWalAtScale(options: {
  serverUrl: string;
  dir: string;
  /** SQL run after the migrations (deno task bench --apply), to measure a proposed change. */
  sqlApplied?: string | null;
  /** Receives the drop of the phase's databases, for a run that is interrupted before the phase ends. */
  onDatabases?: (drop: () => Promise<void>) => void;
  log: (line: string) => void;
}): Promise<WalAtScale> {
  const { serverUrl, dir, sqlApplied, log } = options;
  const bench = await createBenchDatabase(serverUrl, "scale");
  let dropping: Promise<void> | undefined;
  const drop = () => dropping ??= bench.drop();
  options.onDatabases?.(drop);
  const meter = postgres(bench.meterUrl, { max: 1, onnotice: () => {}, idle_timeout: 0, max_lifetime: null });
  try {
    if (sqlApplied) await bench.db.exec(await Deno.readTextFile(sqlApplied));
    const settings: WalAtScale["settings"] = {};
    for (const [name, value] of Object.entries(CHECKPOINT_SETTINGS)) {
      const [row] = await meter.unsafe<{ value: string }[]>("select current_setting($1) as value", [name]);
      settings[name] = { value: row.value, isDefault: row.value === value };
    }
    const changed = Object.entries(settings).filter(([, s]) => !s.isDefault);
    if (changed.length > 0) {
      log(
        `WAL at scale: not PostgreSQL's defaults: ${changed.map(([n, s]) => `${n} = ${s.value}`).join(", ")}`,
      );
    }
    const scripts = await writePgbenchScripts(dir, "10 stores");
    const span = () => _span(bench.url, bench.oid, meter, scripts, log);

    const atZero = await span();
    const started = performance.now();
    const [{ n }] = await bench.db.query<{ n: number }>("select count(*)::int as n from public.orders");
    await loadBulkOrders(bench.db, { orders: EXISTING_ORDERS - n, signedInBuyers: 5_000 });
    const loadSeconds = (performance.now() - started) / 1000;
    log(
      `WAL at scale: ${EXISTING_ORDERS - n} orders bulk-loaded and vacuumed in ${loadSeconds.toFixed(0)} s`,
    );
    const atScale = await span();
    return { settings, ordersPerSpan: ORDERS_PER_SPAN, clients: CLIENTS, atZero, atScale, loadSeconds };
  } finally {
    await meter.end();
    await drop();
  }
}

/** One span of ORDERS_PER_SPAN orders after a checkpoint, measured again when another checkpoint fell in. */
async function _span(
  url: string,
  oid: number,
  meter: Sql,
  scripts: string[],
  log: (line: string) => void,
): Promise<WalSpanFigures> {
  const names = await readRelationNames(url);
  const orders = postgres(url, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 1;; attempt++) {
      const [{ n: before }] = await orders.unsafe<{ n: number }[]>(
        "select count(*)::int as n from public.orders",
      );
      const wal = await openWalSpan(meter, oid, names);
      const result = await runPgbench(url, scripts, CLIENTS, { transactions: ORDERS_PER_SPAN / CLIENTS });
      const usage = await wal.close(await wal.end());
      if (result.failed > 0) throw new Error(`pgbench: ${result.failed} create_order calls failed`);
      const [{ n: after }] = await orders.unsafe<{ n: number }[]>(
        "select count(*)::int as n from public.orders",
      );
      const made = after - before;
      const per = (bytes: number) => bytes / made;
      const figures: WalSpanFigures = {
        existingOrders: before,
        orders: made,
        walBytes: per(usage.ownBytes),
        fpiBytes: per(usage.ownFpiBytes),
        recordBytes: per(usage.ownBytes - usage.ownFpiBytes),
        otherCheckpoints: usage.otherCheckpoints,
        discarded: attempt - 1,
        byRelation: Object.fromEntries(
          Object.entries(usage.ownByRelation).map((
            [name, r],
          ) => [name, { bytes: per(r.bytes), fpiBytes: per(r.fpiBytes), records: per(r.records) }]),
        ),
      };
      log(
        `WAL at ${before} orders: ${kb(figures.walBytes)} KB per order with full-page images, ${
          kb(figures.recordBytes)
        } KB without (${made} orders; other checkpoints inside ${usage.otherCheckpoints ?? "unread"})`,
      );
      if (!usage.otherCheckpoints || attempt === ATTEMPTS) return figures;
    }
  } finally {
    await orders.end();
  }
}

if (import.meta.main) {
  const serverUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dir = await Deno.makeTempDir({ prefix: "bench_wal_" });
  const applyIndex = Deno.args.indexOf("--apply");
  try {
    const figures = await measureWalAtScale({
      serverUrl,
      dir,
      sqlApplied: applyIndex >= 0 ? Deno.args[applyIndex + 1] : null,
      log: (line) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`),
    });
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
