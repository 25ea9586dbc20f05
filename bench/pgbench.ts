/**
 * The physical limit: PostgreSQL's own pgbench calling create_order directly, one script file per
 * order payload (the payloads the service sends, as literals), picked at random with equal weight.
 */
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

/** Writes one script per order of the spread into `dir`; returns pgbench's -f arguments. */
export async function writePgbenchScripts(dir: string, spread: Spread): Promise<string[]> {
  const args: string[] = [];
  for (const [s, k] of ordersOf(spread)) {
    const file = `${dir}/create_order_${spread === "1 store" ? "hot" : "spread"}_${s}_${k}.sql`;
    // pgbench reads ":name" as a variable: JSON with a space after every colon has none
    const json = JSON.stringify(orderPayload(s, k), null, 1).replaceAll("\n", " ");
    const literal = json.replaceAll("'", "''");
    await Deno.writeTextFile(file, `select public.create_order('${literal}'::jsonb);\n`);
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
