/**
 * Cold start: process start to the first 200, each process fresh (the module cache warm, as on a
 * deployed host). Five kinds, interleaved so that drift on a shared machine hits all alike: a
 * hello-world Deno.serve that imports nothing; the floor, a trivial Deno.serve that eagerly imports
 * the libraries create-order must use (bench/same_imports_server.ts); the function (index.ts) and the
 * function bundled with `deno bundle`, both creating an order through the running stand-in; and the
 * whole local stack (local/dev_server.ts).
 */
import { freePort, startDeno } from "./processes.ts";
import { FUNCTION_FLAGS, functionEnv, orderProbe } from "./service_bench.ts";
import { type Spread3, summarize } from "./stats.ts";

/** Cold starts in ms. */
export interface ColdStarts {
  helloWorld: Spread3;
  sameImports: Spread3;
  function: Spread3;
  functionBundled: Spread3;
  localStack: Spread3;
}

/** The permissions of `deno task dev` (deno.json). */
const DEV_FLAGS = ["--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"];

/**
 * `count` cold starts of each kind. The lone function (both forms) calls the running stand-in at
 * `standinUrl`; the local stack runs over `databaseUrl`.
 */
export async function measureColdStarts(
  count: number,
  options: { standinUrl: string; databaseUrl: string; resendUrl: string; bundlePath: string },
): Promise<ColdStarts> {
  const kinds: { name: keyof ColdStarts; start: (port: number) => Parameters<typeof startDeno> }[] = [
    {
      name: "helloWorld",
      start: (port) => [["--allow-net", "--allow-env", "bench/hello_world.ts"], { PORT: String(port) }, {
        url: `http://127.0.0.1:${port}/`,
      }],
    },
    {
      name: "sameImports",
      start: (port) => [
        ["--allow-net", "--allow-env", "bench/same_imports_server.ts"],
        { PORT: String(port) },
        orderProbe(`http://127.0.0.1:${port}`),
      ],
    },
    {
      name: "function",
      start: (port) => [
        [...FUNCTION_FLAGS, "supabase/functions/create-order/index.ts"],
        functionEnv(options.standinUrl, options.resendUrl, port),
        orderProbe(`http://127.0.0.1:${port}`),
      ],
    },
    {
      name: "functionBundled",
      start: (port) => [
        [...FUNCTION_FLAGS, "--no-config", options.bundlePath],
        functionEnv(options.standinUrl, options.resendUrl, port),
        orderProbe(`http://127.0.0.1:${port}`),
      ],
    },
    {
      name: "localStack",
      start: (port) => [[...DEV_FLAGS, "local/dev_server.ts"], {
        DATABASE_URL: options.databaseUrl,
        PORT: String(port),
        RESEND_API_KEY: "re_bench_fake_key",
        RESEND_BASE_URL: options.resendUrl,
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_EMAIL: "0",
      }, orderProbe(`http://127.0.0.1:${port}`)],
    },
  ];
  const times = new Map<keyof ColdStarts, number[]>(kinds.map((k) => [k.name, []]));
  // one of each first, unmeasured: fills Deno's module and code caches
  for (let i = -1; i < count; i++) {
    for (const kind of kinds) {
      const child = await startDeno(...kind.start(freePort()));
      await child.stop();
      if (i >= 0) times.get(kind.name)!.push(child.readyMs);
    }
  }
  const result = {} as Record<keyof ColdStarts, Spread3>;
  for (const [name, ms] of times) result[name] = summarize(ms);
  return result;
}
