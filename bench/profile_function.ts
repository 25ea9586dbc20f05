/**
 * `deno run --allow-all bench/profile_function.ts [seconds]`: the profile behind the function's CPU and
 * memory figures. The create-order function (its entry point, in its own process, as in the bench) runs
 * with `--cpu-prof` against the stand-in over a fresh bench database and the fake Resend, under wrk at 32
 * connections for `seconds` (default 10) after a warm-up; then it prints the function's CPU per order, what
 * that CPU was spent on (bench/cpu_profile_areas.ts) and its peak memory, V8's heap apart. A wrapper entry
 * samples `Deno.memoryUsage()` and exits on SIGTERM, since V8 writes the profile only on a normal exit.
 */
import { createBenchDatabase } from "./bench_database.ts";
import { profileAreas } from "./cpu_profile_areas.ts";
import { clockTicksPerSecond, cpuTicks } from "./process_usage.ts";
import { freePort, startDeno } from "./processes.ts";
import {
  countOrders,
  FUNCTION_FLAGS,
  functionEnv,
  orderProbe,
  startFakeResend,
  startStandin,
} from "./service_bench.ts";
import { runWrk, writeWrkScript } from "./wrk.ts";
import { DEMO_KEYS } from "../local/stack.ts";

const seconds = Number(Deno.args[0] ?? 10);
const root = new URL("../", import.meta.url);
const bench = await createBenchDatabase(
  Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres",
);
const dir = await Deno.makeTempDir({ prefix: "profile_" });
const children: { stop(): Promise<void> }[] = [];
try {
  const wrapper = `${dir}/profiled_function.ts`;
  await Deno.writeTextFile(
    wrapper,
    `import ${JSON.stringify(new URL("supabase/functions/create-order/index.ts", root).href)};
const peak = { rss: 0, heapTotal: 0, heapUsed: 0 };
setInterval(() => {
  const now = Deno.memoryUsage();
  for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], now[key]);
}, 50);
Deno.addSignalListener("SIGTERM", () => {
  console.error("peak memory " + JSON.stringify(peak));
  Deno.exit(0);
});
`,
  );
  const resend = await startFakeResend();
  children.push(resend);
  const standin = await startStandin(bench.url);
  children.push(standin);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const fn = await startDeno(
    [
      ...FUNCTION_FLAGS,
      `--config=${new URL("deno.json", root).pathname}`,
      "--cpu-prof",
      `--cpu-prof-dir=${dir}/profile`,
      wrapper,
    ],
    functionEnv(standin.url, resend.url, port),
    orderProbe(url),
  );
  children.push(fn);
  const script = `${dir}/orders.lua`;
  await writeWrkScript(script, "10 stores", "/functions/v1/create-order", DEMO_KEYS.anon);
  await runWrk(url, script, 32, 2);
  const [ordersBefore, ticksBefore] = [await countOrders(bench.db), cpuTicks(fn.pid)];
  const run = await runWrk(url, script, 32, seconds);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the last e-mails and their results
  const orders = (await countOrders(bench.db)) - ordersBefore;
  const cpuMs = (cpuTicks(fn.pid) - ticksBefore) / await clockTicksPerSecond() * 1000;
  await fn.stop();
  const [file] = [...Deno.readDirSync(`${dir}/profile`)];
  const { busyMs, areas } = profileAreas(JSON.parse(await Deno.readTextFile(`${dir}/profile/${file.name}`)));
  const peak = JSON.parse(/peak memory (.*)/.exec(fn.stderr())![1]) as Record<string, number>;
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log(
    `${run.requestsPerSecond.toFixed(0)} orders/s at 32 connections; function CPU ${
      (cpuMs / orders).toFixed(3)
    } ms per order (all threads, /proc); the JavaScript thread's profile, ${
      busyMs.toFixed(0)
    } ms not idle (wall time, so a thread waiting for a core counts), by area:`,
  );
  for (const [area, share] of areas) console.log(`  ${(share * 100).toFixed(0).padStart(3)} %  ${area}`);
  console.log(
    `peak memory: RSS ${mib(peak.rss)} MiB, of which V8 heap ${mib(peak.heapTotal)} MiB (${
      mib(peak.heapUsed)
    } MiB in use at its peak)`,
  );
} finally {
  for (const child of children.reverse()) await child.stop().catch(() => {});
  await bench.drop();
  await Deno.remove(dir, { recursive: true });
}
