/**
 * Cold start: process start to the first 200, each process fresh (the module cache warm, as on a
 * deployed host). Three kinds, interleaved so that drift on a shared machine hits all alike:
 * a hello-world Deno.serve, the create-order function alone (index.ts, calling the running stack's RPC
 * route), and the whole local stack (local/dev_server.ts).
 */
import { DEMO_KEYS } from "../local/stack.ts";
import { freePort, startDeno } from "./processes.ts";
import { DEV_FLAGS, orderProbe, serviceEnv } from "./service_bench.ts";
import { type Spread3, summarize } from "./stats.ts";

/** Cold starts in ms. */
export interface ColdStarts {
  helloWorld: Spread3;
  function: Spread3;
  localStack: Spread3;
}

/** `count` cold starts of each kind; `stackUrl` is a running stack the lone function calls. */
export async function measureColdStarts(
  count: number,
  stackUrl: string,
  databaseUrl: string,
  resendUrl: string,
): Promise<ColdStarts> {
  const hello: number[] = [];
  const fn: number[] = [];
  const stack: number[] = [];
  const once = async (args: string[], env: Record<string, string>, probe: ReturnType<typeof orderProbe>) => {
    const child = await startDeno(args, env, probe);
    await child.stop();
    return child.readyMs;
  };
  // one of each first, unmeasured: fills Deno's module and code caches
  for (let i = -1; i < count; i++) {
    let port = freePort();
    const h = await once(["--allow-net", "--allow-env", "bench/hello_world.ts"], { PORT: String(port) }, {
      url: `http://127.0.0.1:${port}/`,
      init: {},
    });
    port = freePort();
    const f = await once(
      ["--allow-net", "--allow-env", "supabase/functions/create-order/index.ts"],
      {
        DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}`,
        SUPABASE_URL: stackUrl,
        SUPABASE_ANON_KEY: DEMO_KEYS.anon,
        SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole,
        RESEND_API_KEY: "re_bench_fake_key",
        RESEND_BASE_URL: resendUrl,
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_EMAIL: "0",
      },
      orderProbe(`http://127.0.0.1:${port}`),
    );
    port = freePort();
    const s = await once(
      [...DEV_FLAGS, "local/dev_server.ts"],
      serviceEnv(databaseUrl, resendUrl, port),
      orderProbe(`http://127.0.0.1:${port}`),
    );
    if (i >= 0) {
      hello.push(h);
      fn.push(f);
      stack.push(s);
    }
  }
  return { helloWorld: summarize(hello), function: summarize(fn), localStack: summarize(stack) };
}
