/**
 * The database adapter's time budget, over a real database through the PostgREST stand-in: create_order
 * must be done by the deadline, and the adapter waits ANSWER_GRACE_MS longer for its answer, so an order
 * that committed in time is never answered as a failure because its answer travelled slowly.
 */
import assert from "node:assert/strict";
import { createRpcRoute } from "../local/postgrest_rpc.ts";
import { createDatabaseClient } from "../supabase/functions/_shared/database_client.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import { ANSWER_GRACE_MS } from "../supabase/functions/_shared/orders/database_call.ts";
import { supabaseOrderStore } from "../supabase/functions/_shared/orders/supabase_order_store.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startWatchedCall, waitUntilWaiting } from "./support/lock_waits.ts";
import { holdLock } from "./support/postgres_faults.ts";
import { countStoreRows } from "./support/store_rows.ts";

const SERVICE_KEY = "order-store-test-service-key";

/** Waits `ms`, or rejects as fetch does when `signal` aborts first. */
function _wait(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/**
 * A network that holds each request `beforeMs` on its way out and its answer `afterMs` on its way back.
 * A request on its way out goes on when its caller gives up (it is already sent); `sent` settles when the
 * last one has reached the database and been answered.
 */
function slowNetwork(beforeMs: number, afterMs: number): typeof fetch & { sent: Promise<unknown> } {
  let sent: Promise<unknown> = Promise.resolve();
  const network = async (input: string | URL | Request, init?: RequestInit) => {
    const delivered = _wait(beforeMs).then(() => fetch(input, { ...init, signal: undefined }));
    sent = delivered.catch(() => {});
    const response = await Promise.race([delivered, _wait(beforeMs + 60_000, init?.signal)]) as Response;
    await _wait(afterMs, init?.signal);
    return response;
  };
  return Object.assign(network, {
    get sent() {
      return sent;
    },
  });
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  const serve = (onCall?: (fn: string) => void) => {
    const rpc = createRpcRoute(db, { anon: [], serviceRole: [SERVICE_KEY] }, { onCall });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
      const match = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(new URL(request.url).pathname);
      return match ? rpc(request, match[1]) : new Response("no route", { status: 404 });
    });
    return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
  };

  // pins a past bug: the adapter gave up at the deadline itself and create_order had to finish a fifth of
  // the time left earlier; at a budget of 100 ms that was 20 ms, which an answer's trip back exceeds, so
  // orders committed in time were answered 500 and then e-mailed
  test("supabaseOrderStore() answers an order that committed by its deadline, however slowly the answer comes back", async () => {
    const store = await createTestStore(db);
    const server = serve();
    try {
      const budgetMs = 2_000;
      // the call reaches the database at once, with 1.9 s to commit however loaded the machine is, and its
      // answer takes 1.95 s to come back: past the deadline, within ANSWER_GRACE_MS of it
      const client = createDatabaseClient(server.url, SERVICE_KEY, slowNetwork(100, budgetMs - 50));
      const orders = supabaseOrderStore(client);
      const result = await orders.createOrder(createOrderPayload(store), {
        deadline: new Date(Date.now() + budgetMs),
      });
      assert.equal(result.replayed, false);
      assert.equal((await countStoreRows(db, store.storeId)).orders, 1);
    } finally {
      await server.close();
    }
  });

  test("supabaseOrderStore() gives up ANSWER_GRACE_MS after the deadline, and the late call stores nothing", async () => {
    const store = await createTestStore(db);
    const server = serve();
    try {
      const budgetMs = 200;
      // the call is held on its way out past the deadline and the grace: the adapter must give up first
      const client = createDatabaseClient(
        server.url,
        SERVICE_KEY,
        slowNetwork(budgetMs + ANSWER_GRACE_MS + 300, 0),
      );
      const orders = supabaseOrderStore(client);
      await assert.rejects(
        orders.createOrder(createOrderPayload(store), { deadline: new Date(Date.now() + budgetMs) }),
        (error) => error instanceof OrderError && error.code === "INTERNAL_ERROR",
      );
      assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
    } finally {
      await server.close();
    }
  });

  test("create_order through the adapter refuses a call that reaches the database after its deadline", async () => {
    const store = await createTestStore(db);
    const server = serve();
    try {
      const budgetMs = 200;
      // reaches the database 300 ms after its deadline, well within the adapter's grace
      const orders = supabaseOrderStore(
        createDatabaseClient(server.url, SERVICE_KEY, slowNetwork(budgetMs + 300, 0)),
      );
      await assert.rejects(
        orders.createOrder(createOrderPayload(store), { deadline: new Date(Date.now() + budgetMs) }),
        (error) => error instanceof OrderError && error.code === "INTERNAL_ERROR",
      );
      assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
    } finally {
      await server.close();
    }
  });

  if (name === "postgres") {
    test("supabaseOrderStore() makes a call refused STORE_BUSY again after a pause, and stores the order once a slot of its store frees", async () => {
      const store = await createTestStore(db);
      await callCreateOrder(db, createOrderPayload(store));
      const lock = await holdLock(db, "select 1 from public.order_counters where store_id = $1 for update", [
        store.storeId,
      ]);
      // the store's three slots, each taken by an order waiting on the held row
      const deadline = new Date(Date.now() + 5_000);
      const waiting = [];
      for (let i = 0; i < 3; i++) {
        const call = await startWatchedCall(
          db,
          "service_role",
          "select public.create_order($1::text::jsonb)",
          [
            JSON.stringify({ ...createOrderPayload(store), deadline: deadline.toISOString() }),
          ],
        );
        waiting.push(call);
        await waitUntilWaiting(db, call.pid);
      }
      let calls = 0;
      let released = false;
      const server = serve((fn) => {
        if (fn === "create_order") calls++;
      });
      try {
        const pauses: number[] = [];
        const orders = supabaseOrderStore(createDatabaseClient(server.url, SERVICE_KEY), () => new Date(), {
          sleep: async (ms) => {
            pauses.push(ms);
            // the row is released while the adapter pauses after its third refused try
            if (pauses.length === 3) {
              released = true;
              await lock.release();
            }
            await new Promise((resolve) => setTimeout(resolve, ms));
          },
        });
        const result = await orders.createOrder(createOrderPayload(store), { deadline });
        assert.equal(result.replayed, false);
        assert.ok(calls >= 4, `${calls} create_order calls`);
        assert.equal(pauses.length, calls - 1);
      } finally {
        if (!released) await lock.release();
        for (const call of waiting) {
          await call.outcome;
          await call.close();
        }
        await server.close();
      }
      assert.equal((await countStoreRows(db, store.storeId)).orders, 5);
    });
  }
}
