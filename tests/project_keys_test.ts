/**
 * The project's keys as Supabase hands them out today (contract, "Authentication"): a signed-in buyer's
 * supabase-js headers with a publishable key, and a project that has disabled its legacy keys, where the
 * function must call the database with its secret key although SUPABASE_SERVICE_ROLE_KEY is still set, and,
 * once its owner sets LEGACY_API_KEYS=disabled, refuse both legacy keys from every caller.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { countStoreRows } from "./support/store_rows.ts";

const PUBLISHABLE = "sb_publishable_keys_test";
const SECRET = "sb_secret_keys_test";
const USER_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJidXllciIsInJvbGUiOiJhdXRoZW50aWNhdGVkIn0.signature";
const NEWER_KEYS = {
  SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
  SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET }),
  RATE_LIMIT_PER_IP: "0",
  RATE_LIMIT_PER_EMAIL: "0",
};

function _signedInBuyerHeaders(projectKey: string): HeadersInit {
  // what supabase-js sends for a signed-in buyer: the project key in apikey, the user's JWT as Bearer
  return { apikey: projectKey, Authorization: `Bearer ${USER_JWT}`, "Content-Type": "application/json" };
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST create-order accepts a signed-in buyer's headers with a publishable key: 200, the order and its e-mails stored", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NEWER_KEYS });
    try {
      const res = await fetch(`${stack.url}/functions/v1/create-order`, {
        method: "POST",
        headers: _signedInBuyerHeaders(PUBLISHABLE),
        body: JSON.stringify(orderBody(store)),
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).success, true);
      await stack.settled();
      const rows = await countStoreRows(db, store.storeId);
      assert.deepEqual([rows.orders, rows.items, rows.emails], [1, 1, 2]);
      assert.equal(stack.mail.sent.length, 2);
    } finally {
      await stack.close();
    }
  });

  test("POST create-order succeeds on a project with legacy keys disabled: the function calls the database with its secret key", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({
      db,
      legacyKeysDisabled: true,
      // the legacy JWTs stay in the function's environment, as on Supabase after disabling them
      env: {
        ...NEWER_KEYS,
        SUPABASE_ANON_KEY: "legacy.anon.jwt",
        SUPABASE_SERVICE_ROLE_KEY: "legacy.service-role.jwt",
      },
    });
    try {
      // the stand-in refuses the legacy service-role JWT as the gateway does
      const direct = await fetch(`${stack.url}/rest/v1/rpc/create_order`, {
        method: "POST",
        headers: { Authorization: "Bearer legacy.service-role.jwt", "Content-Type": "application/json" },
        body: JSON.stringify({ payload: {} }),
      });
      assert.equal(direct.status, 401);
      assert.deepEqual(await direct.json(), { message: "Legacy API keys are disabled" });

      const res = await fetch(`${stack.url}/functions/v1/create-order`, {
        method: "POST",
        headers: _signedInBuyerHeaders(PUBLISHABLE),
        body: JSON.stringify(orderBody(store)),
      });
      assert.equal(res.status, 200);
      await stack.settled();
      assert.deepEqual(stack.rpcCalls.get("create_order"), 1);
      const rows = await countStoreRows(db, store.storeId);
      assert.deepEqual([rows.orders, rows.emails], [1, 2]);
      const sent = await db.query<{ status: string }>(
        `select e.status from public.email_outbox e join public.orders o on o.id = e.order_id
         where o.store_id = $1 order by e.kind`,
        [store.storeId],
      );
      assert.deepEqual(sent.map((row) => row.status), ["sent", "sent"]);
    } finally {
      await stack.close();
    }
  });
}

/** The functions that take keys, each with a body its key check comes before, and the key class it admits. */
const KEYED_FUNCTIONS = [
  { name: "create-order", admits: "publishable" },
  { name: "update-order-status", admits: "secret" },
  { name: "outbox-drain", admits: "secret" },
] as const;

const LEGACY = { SUPABASE_ANON_KEY: "legacy.anon.jwt", SUPABASE_SERVICE_ROLE_KEY: "legacy.service-role.jwt" };

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("LEGACY_API_KEYS=disabled: create-order, update-order-status and outbox-drain answer 401 to both legacy keys, in Authorization and in apikey", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({
      db,
      env: { ...NEWER_KEYS, ...LEGACY, LEGACY_API_KEYS: "disabled" },
    });
    try {
      for (const fn of KEYED_FUNCTIONS) {
        for (const key of Object.values(LEGACY)) {
          for (
            const headers of [{ Authorization: `Bearer ${key}` }, { apikey: key }] as Record<string, string>[]
          ) {
            const res = await fetch(`${stack.url}/functions/v1/${fn.name}`, {
              method: "POST",
              headers: { ...headers, "Content-Type": "application/json", Origin: "https://shop.example" },
              body: JSON.stringify(orderBody(store)),
            });
            const where = `${fn.name} with ${Object.keys(headers)[0]}: ${key}`;
            assert.equal(res.status, 401, where);
            assert.equal(res.headers.get("www-authenticate"), "Bearer", where);
            assert.equal(res.headers.get("access-control-allow-origin"), "*", where);
            assert.equal((await res.json()).error.code, "UNAUTHORIZED", where);
          }
        }
      }
      assert.equal((await countStoreRows(db, store.storeId)).orders, 0);
      assert.equal(stack.rpcCalls.size, 0);
    } finally {
      await stack.close();
    }
  });

  test("LEGACY_API_KEYS=disabled: the publishable key still places an order, the secret key still moves it and drains the outbox", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({
      db,
      env: { ...NEWER_KEYS, ...LEGACY, LEGACY_API_KEYS: "disabled" },
    });
    try {
      const placed = await fetch(`${stack.url}/functions/v1/create-order`, {
        method: "POST",
        headers: { Authorization: `Bearer ${PUBLISHABLE}`, "Content-Type": "application/json" },
        body: JSON.stringify(orderBody(store)),
      });
      assert.equal(placed.status, 200);
      const { orderId } = await placed.json();

      const moved = await fetch(`${stack.url}/functions/v1/update-order-status`, {
        method: "POST",
        headers: { apikey: SECRET, "Content-Type": "application/json" },
        body: JSON.stringify({ orderId, status: "cancelled", note: "changed my mind" }),
      });
      assert.equal(moved.status, 200);
      assert.equal((await moved.json()).status, "cancelled");

      const drained = await fetch(`${stack.url}/functions/v1/outbox-drain`, {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}`, "Content-Type": "application/json" },
        body: "{}",
      });
      assert.equal(drained.status, 200);
      await drained.body?.cancel();
      // every database call went through the RPC route, which refuses the legacy keys: so with the secret one
      assert.equal(stack.rpcCalls.get("create_order"), 1);
    } finally {
      await stack.close();
    }
  });
}
