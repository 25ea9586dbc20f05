/**
 * `deno run --allow-all bench/hot_store.ts [--seconds 10] [--runs 3] [--slots 3,4]`: one hot store's orders
 * per second through pgbench at 1, 8 and 32 clients, without waiter slots and with them (K =
 * order_settings.store_order_slots: the database's default, or each K of --slots), runs alternating so that
 * every variant sees the same load on a shared machine. Every call is made as create-order's adapter makes
 * it: one refused with STORE_BUSY (OCW29, the store's K slots taken) is made again after the adapter's pause
 * (bench_retry.create_order, pgbench.ts). "Without" is the same database with create_order as it was before
 * the slots (20261126000800_create_order_lock_order_zone_text.sql applied over the migrations). Prints one
 * line per run and a Markdown table: median orders/s and latency, and create_order calls per order.
 */
import { type BenchDatabase, createBenchDatabase } from "./bench_database.ts";
import { orderPayload, ordersOf } from "./catalogue.ts";
import { refusedTries, runPgbench } from "./pgbench.ts";

const args = Deno.args;
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const seconds = Number(option("--seconds") ?? 10);
const runs = Number(option("--runs") ?? 3);
const slotCounts = option("--slots")?.split(",").map(Number) ?? [null];
const serverUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const log = (line: string) => console.error(`[hot store ${new Date().toISOString().slice(11, 19)}] ${line}`);
const BEFORE_SLOTS = new URL(
  "../supabase/migrations/20261126000800_create_order_lock_order_zone_text.sql",
  import.meta.url,
);

interface Variant {
  name: string;
  bench: BenchDatabase;
  tps: number[];
  latencyMs: number[];
  orders: number;
  refused: number;
}

const variants: Variant[] = [];
const dir = await Deno.makeTempDir({ prefix: "hot_store_" });
try {
  const before = await createBenchDatabase(serverUrl, "hot_without");
  variants.push({ name: "without slots", bench: before, tps: [], latencyMs: [], orders: 0, refused: 0 });
  await before.db.exec(await Deno.readTextFile(BEFORE_SLOTS));
  for (const [i, k] of slotCounts.entries()) {
    const bench = await createBenchDatabase(serverUrl, `hot_slots${i}`);
    if (k !== null) await bench.db.query("update public.order_settings set store_order_slots = $1", [k]);
    const [{ slots }] = await bench.db.query<{ slots: number }>(
      "select store_order_slots as slots from public.order_settings",
    );
    variants.push({ name: `K = ${slots}`, bench, tps: [], latencyMs: [], orders: 0, refused: 0 });
  }

  const scripts: string[] = [];
  for (const [s, o] of ordersOf("1 store")) {
    const file = `${dir}/hot_${s}_${o}.sql`;
    // pgbench reads ":name" as a variable: JSON with a space after every colon has none
    const json = JSON.stringify(orderPayload(s, o), null, 1).replaceAll("\n", " ").replaceAll("'", "''");
    await Deno.writeTextFile(file, `select bench_retry.create_order('${json}'::jsonb);\n`);
    scripts.push("-f", `${file}@1`);
  }

  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const rows: string[] = [];
  for (const clients of [1, 8, 32]) {
    for (const variant of variants) Object.assign(variant, { tps: [], latencyMs: [], orders: 0, refused: 0 });
    for (let run = 0; run < runs; run++) {
      for (const variant of variants) {
        const refusedBefore = await refusedTries(variant.bench.db);
        const result = await runPgbench(variant.bench.url, scripts, clients, seconds);
        const refused = (await refusedTries(variant.bench.db)) - refusedBefore;
        variant.tps.push(result.tps);
        variant.latencyMs.push(result.latencyMs);
        variant.orders += result.transactions;
        variant.refused += refused;
        log(
          `${clients} clients, ${variant.name}, run ${run + 1}: ${result.tps.toFixed(0)} orders/s, latency ${
            result.latencyMs.toFixed(1)
          } ms, ${refused} tries refused for ${result.transactions} orders`,
        );
      }
    }
    const base = median(variants[0].tps);
    for (const variant of variants) {
      rows.push(
        `| ${clients} | ${variant.name} | ${median(variant.tps).toFixed(0)} (${
          variant.tps.map((t) => t.toFixed(0)).join(", ")
        }) | ${(median(variant.tps) / base).toFixed(2)} | ${median(variant.latencyMs).toFixed(1)} | ${
          (1 + variant.refused / Math.max(variant.orders, 1)).toFixed(3)
        } |`,
      );
    }
  }
  console.log([
    `one hot store, pgbench, ${runs} runs of ${seconds} s per variant, alternating:`,
    "| clients | waiter slots | orders/s, median (runs) | ÷ without | latency ms, median | create_order calls per order |",
    "|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"));
} finally {
  for (const { bench } of variants) await bench.drop();
  await Deno.remove(dir, { recursive: true });
}
