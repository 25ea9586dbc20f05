/**
 * The service under load: `local/dev_server.ts` (what `deno task dev` runs) as a child process over the
 * bench database, e-mail to a fake Resend, driven by wrk; its peak RSS at 32 connections, and the check
 * that the RPC route saw exactly one create_order call per stored order.
 */
import type { SqlDatabase } from "../local/sql_database.ts";
import { DEMO_KEYS } from "../local/stack.ts";
import { orderBody, type Spread } from "./catalogue.ts";
import { type Child, freePort, startDeno } from "./processes.ts";
import { runWrk, writeWrkScript, type WrkResult } from "./wrk.ts";

/** The permissions of `deno task dev` (deno.json). */
export const DEV_FLAGS = ["--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"];
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

/** The environment of the service: the bench database, the fake Resend, rate limits off. */
export function serviceEnv(databaseUrl: string, resendUrl: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    RESEND_API_KEY: "re_bench_fake_key",
    RESEND_BASE_URL: resendUrl,
    RATE_LIMIT_PER_IP: "0",
    RATE_LIMIT_PER_EMAIL: "0",
    LOCAL_STACK_STATS: "1",
  };
}

/** Starts the fake Resend child. */
export async function startFakeResend(): Promise<Child & { url: string }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startDeno(["--allow-net", "--allow-env", "bench/fake_resend_server.ts"], {
    PORT: String(port),
  }, {
    url: `${url}/__stats`,
  });
  return Object.assign(child, { url });
}

/** A running service and what it takes to load it. */
export interface Service {
  child: Child;
  url: string;
  /** Orders in the database before it started. */
  ordersBefore: number;
  /** One wrk run against the function. */
  load(spread: Spread, connections: number, seconds: number): Promise<WrkResult>;
  /** The RPC route's calls per function so far. */
  rpcCalls(): Promise<Record<string, number>>;
}

/** Starts `local/dev_server.ts` over `databaseUrl` and writes the wrk scripts into `dir`. */
export async function startService(
  db: SqlDatabase,
  databaseUrl: string,
  resendUrl: string,
  dir: string,
): Promise<Service> {
  const ordersBefore = await countOrders(db);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startDeno(
    [...DEV_FLAGS, "local/dev_server.ts"],
    serviceEnv(databaseUrl, resendUrl, port),
    orderProbe(url),
  );
  const scripts: Record<Spread, string> = {
    "10 stores": `${dir}/orders_spread.lua`,
    "1 store": `${dir}/orders_hot.lua`,
  };
  for (const spread of ["10 stores", "1 store"] as const) {
    await writeWrkScript(scripts[spread], spread, FUNCTION_PATH, DEMO_KEYS.anon);
  }
  return {
    child,
    url,
    ordersBefore,
    async load(spread, connections, seconds) {
      const result = await runWrk(url, scripts[spread], connections, seconds);
      if (child.exitCode() !== null) {
        throw new Error(
          `the service exited (${child.exitCode()}) during the run:\n${child.stderr().slice(-3000)}`,
        );
      }
      return result;
    },
    async rpcCalls() {
      const response = await fetch(`${url}/__stats`);
      return (await response.json()).rpcCalls;
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
  otherCalls: Record<string, number>;
  ok: boolean;
}

/**
 * Waits (up to 15 s) until the orders the service stored equal its create_order calls, in-flight
 * requests of the last wrk run included, and reports both.
 */
export async function checkOneCallPerOrder(db: SqlDatabase, service: Service): Promise<RpcCheck> {
  let check: RpcCheck | undefined;
  for (let waited = 0; waited < 15_000; waited += 250) {
    const calls = await service.rpcCalls();
    const orders = (await countOrders(db)) - service.ordersBefore;
    const { create_order: createOrderCalls = 0, ...otherCalls } = calls;
    check = { orders, createOrderCalls, otherCalls, ok: orders === createOrderCalls };
    if (check.ok) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return check!;
}
