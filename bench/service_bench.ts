/**
 * The service under load, as two processes: the create-order function (its deployed entry point,
 * supabase/functions/create-order/index.ts) and the PostgREST stand-in (bench/standin_server.ts) over
 * the bench database, e-mail to a fake Resend, driven by wrk; and the check that the RPC route saw
 * exactly one create_order call per stored order.
 */
import type { SqlDatabase } from "../local/sql_database.ts";
import { DEMO_KEYS } from "../local/stack.ts";
import { orderBody, type Spread } from "./catalogue.ts";
import { type Child, freePort, startDeno } from "./processes.ts";
import { runWrk, writeWrkScript, type WrkResult } from "./wrk.ts";

const FUNCTION_PATH = "/functions/v1/create-order";

/** A probe request that creates one valid order. */
export function orderProbe(baseUrl: string): { url: string; init: RequestInit } {
  return {
    url: `${baseUrl}${FUNCTION_PATH}`,
    init: {
      method: "POST",
      headers: { Authorization: `Bearer ${DEMO_KEYS.anon}`, "Content-Type": "application/json" },
      body: JSON.stringify(orderBody(0, 0)),
    },
  };
}

/** Starts the fake Resend child. */
export async function startFakeResend(): Promise<Child & { url: string }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startDeno(["--allow-net", "--allow-env", "local/fake_resend.ts"], {
    PORT: String(port),
  }, {
    url: `${url}/__stats`,
  });
  return Object.assign(child, { url });
}

/** The function process's environment: the stand-in as SUPABASE_URL, the fake Resend, rate limits off. */
export function functionEnv(standinUrl: string, resendUrl: string, port: number): Record<string, string> {
  return {
    DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}`,
    SUPABASE_URL: standinUrl,
    SUPABASE_ANON_KEY: DEMO_KEYS.anon,
    SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole,
    RESEND_API_KEY: "re_bench_fake_key",
    RESEND_BASE_URL: resendUrl,
    RATE_LIMIT_PER_IP: "0",
    RATE_LIMIT_PER_EMAIL: "0",
  };
}

/** The permissions of the function process (what Supabase's runtime grants it that it uses). */
export const FUNCTION_FLAGS = ["--allow-net", "--allow-env"];

/** Starts bench/standin_server.ts over `databaseUrl` (pool of 8). */
export async function startStandin(databaseUrl: string): Promise<Child & { url: string }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startDeno(["--allow-net", "--allow-env", "--allow-read", "bench/standin_server.ts"], {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    POOL_SIZE: "8",
    SUPABASE_ANON_KEY: DEMO_KEYS.anon,
    SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole,
  }, { url: `${url}/__stats` });
  return Object.assign(child, { url });
}

/** A running service (function and stand-in, each its own process) and what it takes to load it. */
export interface Service {
  /** The create-order function (supabase/functions/create-order/index.ts). */
  function: Child;
  /** The PostgREST stand-in (bench/standin_server.ts). */
  standin: Child;
  /** The function's base URL. */
  url: string;
  standinUrl: string;
  /** Orders in the database before it started. */
  ordersBefore: number;
  /** One wrk run against the function. */
  load(spread: Spread, connections: number, seconds: number): Promise<WrkResult>;
  /** The RPC route's calls per function so far. */
  rpcCalls(): Promise<Record<string, number>>;
  /** The create_order calls refused with STORE_BUSY so far (each made again by the function). */
  storeBusy(): Promise<number>;
  /**
   * Waits until the work of the last load is done: the stand-in's calls and the fake Resend's e-mails
   * unchanged for 1 s (the e-mails and their results are sent after each response). Up to 30 s.
   */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the stand-in over `databaseUrl` and the function (its deployed entry point, index.ts) against
 * it, each in its own process, and writes the wrk scripts into `dir`.
 */
export async function startService(
  db: SqlDatabase,
  databaseUrl: string,
  resendUrl: string,
  dir: string,
): Promise<Service> {
  const ordersBefore = await countOrders(db);
  const standin = await startStandin(databaseUrl);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let fn: Child;
  try {
    fn = await startDeno(
      [...FUNCTION_FLAGS, "supabase/functions/create-order/index.ts"],
      functionEnv(standin.url, resendUrl, port),
      orderProbe(url),
    );
  } catch (error) {
    await standin.stop();
    throw error;
  }
  const scripts: Record<Spread, string> = {
    "10 stores": `${dir}/orders_spread.lua`,
    "1 store": `${dir}/orders_hot.lua`,
  };
  for (const spread of ["10 stores", "1 store"] as const) {
    await writeWrkScript(scripts[spread], spread, FUNCTION_PATH, DEMO_KEYS.anon);
  }
  const rpcCalls = async (): Promise<Record<string, number>> =>
    (await (await fetch(`${standin.url}/__stats`)).json()).rpcCalls;
  const storeBusy = async (): Promise<number> =>
    (await (await fetch(`${standin.url}/__stats`)).json()).storeBusy;
  return {
    function: fn,
    standin,
    url,
    standinUrl: standin.url,
    ordersBefore,
    async load(spread, connections, seconds) {
      const result = await runWrk(url, scripts[spread], connections, seconds);
      for (const [name, child] of [["function", fn], ["stand-in", standin]] as const) {
        if (child.exitCode() !== null) {
          throw new Error(
            `the ${name} exited (${child.exitCode()}) during the run:\n${child.stderr().slice(-3000)}`,
          );
        }
      }
      return result;
    },
    rpcCalls,
    storeBusy,
    async drain() {
      const state = async () =>
        JSON.stringify([await rpcCalls(), (await (await fetch(`${resendUrl}/__stats`)).json()).sent]);
      let last = await state();
      for (let quiet = 0, waited = 0; quiet < 1_000 && waited < 30_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const now = await state();
        quiet = now === last ? quiet + 100 : 0;
        last = now;
      }
    },
    async stop() {
      await fn.stop();
      await standin.stop();
    },
  };
}

/** Orders stored so far. */
export async function countOrders(db: SqlDatabase): Promise<number> {
  const rows = await db.query<{ n: string }>("select count(*)::text as n from public.orders");
  return Number(rows[0].n);
}

/** What the one-call-per-order check found. */
export interface RpcCheck {
  orders: number;
  createOrderCalls: number;
  /** Of the create_order calls, those refused with STORE_BUSY (the store's waiter slots taken) and made again. */
  storeBusy: number;
  otherCalls: Record<string, number>;
  ok: boolean;
}

/**
 * Waits (up to 15 s) until the orders the service stored equal its create_order calls less those refused
 * with STORE_BUSY (each a try the function made again, which stored nothing), in-flight requests of the last
 * wrk run included, and reports them.
 */
export async function checkOneCallPerOrder(db: SqlDatabase, service: Service): Promise<RpcCheck> {
  let check: RpcCheck | undefined;
  for (let waited = 0; waited < 15_000; waited += 250) {
    const calls = await service.rpcCalls();
    const orders = (await countOrders(db)) - service.ordersBefore;
    const storeBusy = await service.storeBusy();
    const { create_order: createOrderCalls = 0, ...otherCalls } = calls;
    check = { orders, createOrderCalls, storeBusy, otherCalls, ok: orders === createOrderCalls - storeBusy };
    if (check.ok) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return check!;
}
