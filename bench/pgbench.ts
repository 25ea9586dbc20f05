/**
 * The physical limit: PostgreSQL's own pgbench calling create_order directly, one script file per
 * order payload (the payloads the service sends, as literals), picked at random with equal weight. Each call
 * is made as create-order's adapter makes it: one refused with STORE_BUSY (OCW29: its store has K orders
 * in the database already) is made again after the adapter's pause ({@linkcode PGBENCH_RETRY_SQL}).
 */
import type { SqlDatabase } from "../local/sql_database.ts";
import { FIRST_PAUSE_MS, MAX_PAUSE_MS } from "../supabase/functions/_shared/orders/store_busy_retry.ts";
import { orderPayload, ordersOf, type Spread } from "./catalogue.ts";

/** Where pgbench lives on Debian's PostgreSQL 15 packages, unless PGBENCH says otherwise. */
export const PGBENCH = Deno.env.get("PGBENCH") ?? "/usr/lib/postgresql/15/bin/pgbench";

/** One pgbench measurement. */
export interface PgbenchResult {
  tps: number;
  latencyMs: number;
  transactions: number;
  failed: number;
}

/**
 * `bench_retry.create_order(payload)`, in a schema of its own in the bench database: create_order, made again
 * after a STORE_BUSY as store_busy_retry.ts does it (a pause of half the step and a random share of the other
 * half, the step doubling from FIRST_PAUSE_MS to at most MAX_PAUSE_MS), each refused try counted in the
 * sequence bench_retry.refused (not undone by the rollback). A database without waiter slots never refuses.
 */
export const PGBENCH_RETRY_SQL = `
create schema bench_retry;
create sequence bench_retry.refused;
create function bench_retry.create_order(payload jsonb) returns jsonb
language plpgsql as $$
declare
  v_attempt integer := 0;
  v_step double precision;
begin
  loop
    v_attempt := v_attempt + 1;
    begin
      return public.create_order(payload);
    exception when sqlstate 'OCW29' then
      perform nextval('bench_retry.refused');
      v_step := least(${MAX_PAUSE_MS / 1000}, ${FIRST_PAUSE_MS / 1000} * 2 ^ (v_attempt - 1));
      perform pg_sleep(v_step / 2 + v_step / 2 * random());
    end;
  end loop;
end;
$$;`;

/** The tries STORE_BUSY refused so far in the bench database (bench_retry.refused). */
export async function refusedTries(db: SqlDatabase): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(
    "select case when is_called then last_value else 0 end::int as n from bench_retry.refused",
  );
  return n;
}

/** Writes one script per order of the spread into `dir`; returns pgbench's -f arguments. */
export async function writePgbenchScripts(dir: string, spread: Spread): Promise<string[]> {
  const args: string[] = [];
  for (const [s, k] of ordersOf(spread)) {
    const file = `${dir}/create_order_${spread === "1 store" ? "hot" : "spread"}_${s}_${k}.sql`;
    // pgbench reads ":name" as a variable: JSON with a space after every colon has none
    const json = JSON.stringify(orderPayload(s, k), null, 1).replaceAll("\n", " ");
    const literal = json.replaceAll("'", "''");
    await Deno.writeTextFile(file, `select bench_retry.create_order('${literal}'::jsonb);\n`);
    args.push("-f", `${file}@1`);
  }
  return args;
}

/**
 * Runs pgbench with `clients` clients for `seconds`, or for `{ transactions }` each, and reads its summary.
 */
export async function runPgbench(
  url: string,
  scripts: string[],
  clients: number,
  length: number | { transactions: number },
): Promise<PgbenchResult> {
  const args = [
    "--no-vacuum",
    "--protocol=prepared",
    `--client=${clients}`,
    `--jobs=${Math.min(clients, 2)}`,
    typeof length === "number" ? `--time=${length}` : `--transactions=${length.transactions}`,
    ...scripts,
    url,
  ];
  const output = await new Deno.Command(PGBENCH, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(
      `pgbench failed (${output.code}): ${new TextDecoder().decode(output.stderr).slice(-2000)}`,
    );
  }
  const number = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
  const result = {
    tps: number(/^tps = ([\d.]+)/m),
    latencyMs: number(/^latency average = ([\d.]+) ms/m),
    transactions: number(/^number of transactions actually processed: (\d+)/m),
    failed: number(/^number of failed transactions: (\d+)/m) || 0,
  };
  if (!Number.isFinite(result.tps)) throw new Error(`pgbench printed no tps:\n${text}`);
  return result;
}
