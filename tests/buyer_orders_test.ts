/**
 * Signed-in buyers: create-order records the user of a verified JWT, and each buyer reads their own orders,
 * items and history straight from the database with supabase-js, under row level security, through the
 * local stack (its key set, its PostgREST stand-in). Two users minted with the stack's signing key; anon
 * and the other user read none of them. An unverifiable JWT beside a valid key is a guest order.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { createSigningKey, mintUserToken } from "../local/auth_keys.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";

const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

/** supabase-js as a signed-in buyer's app holds it: the public key, and the user's access token. */
function buyerClient(url: string, anonKey: string, token: string) {
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: `Bearer ${token}` } },
  });
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST create-order records the signed-in buyer: each of two users reads their own orders, items and history with supabase-js, never the other's, and anon none", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const users = [crypto.randomUUID(), crypto.randomUUID()];
      const tokens = await Promise.all(
        users.map((sub, i) => mintUserToken(stack.signingKey, { sub, email: `buyer${i}@example.com` })),
      );
      const clients = tokens.map((token) => buyerClient(stack.url, stack.anonKey, token));
      // each user orders twice through supabase-js, which sends the user's JWT beside the key
      const orderIds: string[][] = [[], []];
      for (const [i, client] of clients.entries()) {
        for (let n = 0; n < 2; n++) {
          const { data, error } = await client.functions.invoke("create-order", { body: orderBody(store) });
          assert.equal(error, null);
          orderIds[i].push(data.orderId);
        }
      }
      const guest = await stack.post(orderBody(store));
      assert.equal(guest.status, 200);
      const guestOrderId = (await guest.json()).orderId;

      const stored = await db.query<{ id: string; buyer_user_id: string | null }>(
        "select id, buyer_user_id from public.orders where store_id = $1",
        [store.storeId],
      );
      const owner = new Map(stored.map((row) => [row.id, row.buyer_user_id]));
      assert.deepEqual(orderIds.map((ids) => ids.map((id) => owner.get(id))), [
        [users[0], users[0]],
        [users[1], users[1]],
      ]);
      assert.equal(owner.get(guestOrderId), null);

      for (const [i, client] of clients.entries()) {
        const orders = await client.from("orders").select("id,buyer_user_id,status,final_amount")
          .order("created_at", { ascending: true });
        assert.equal(orders.error, null);
        assert.deepEqual(orders.data!.map((o) => o.id).sort(), [...orderIds[i]].sort());
        assert.ok(orders.data!.every((o) => o.buyer_user_id === users[i] && o.status === "payment_pending"));

        const items = await client.from("order_items").select("order_id,quantity,unit_price");
        assert.deepEqual(items.data!.map((item) => item.order_id).sort(), [...orderIds[i]].sort());
        const history = await client.from("order_status_history").select("order_id,to_status");
        assert.deepEqual(history.data!.map((h) => h.order_id).sort(), [...orderIds[i]].sort());
        // who changed a status is the seller's record, not the buyer's
        const changedBy = await client.from("order_status_history").select("changed_by");
        assert.equal(changedBy.error?.code, "42501");

        // asking for the other buyer's or the guest's order by id finds nothing
        for (const other of [...orderIds[1 - i], guestOrderId]) {
          for (const [table, column] of [["orders", "id"], ["order_items", "order_id"]] as const) {
            const { data, error } = await client.from(table).select("*").eq(column, other);
            assert.equal(error, null);
            assert.deepEqual(data, [], `${table} of ${other}`);
          }
          const { data } = await client.from("order_status_history").select("order_id,to_status,changed_at")
            .eq("order_id", other);
          assert.deepEqual(data, []);
        }
      }

      const anon = createClient(stack.url, stack.anonKey, { auth: { persistSession: false } });
      const { data, error } = await anon.from("orders").select("id").eq("id", orderIds[0][0]);
      assert.equal(data, null);
      assert.equal(error?.code, "42501");
      await stack.settled();
    } finally {
      await stack.close();
    }
  });

  test("POST create-order makes a guest order, never a 401, for a JWT beside a valid key that is invalid, expired, signed by another key, symmetric, or a project key", async () => {
    const store: TestStore = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const sub = crypto.randomUUID();
      const cases: [string, string][] = [
        ["not a JWT at all", "not-a-jwt"],
        ["JWT-shaped garbage", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"],
        ["expired", await mintUserToken(stack.signingKey, { sub, expiresIn: -60 })],
        ["signed by another key", await mintUserToken(await createSigningKey(), { sub })],
        [
          "HS256 (verified by the Auth server, which refuses it)",
          "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMDAwMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDEiLCJyb2xlIjoiYXV0aGVudGljYXRlZCIsImV4cCI6OTk5OTk5OTk5OX0.c2lnbmF0dXJl",
        ],
        ["the anon key itself", stack.anonKey],
        ["the service-role key itself", stack.serviceKey],
      ];
      for (const [label, token] of cases) {
        const res = await stack.post(orderBody(store), {
          Authorization: `Bearer ${token}`,
          apikey: stack.anonKey,
        });
        assert.equal(res.status, 200, label);
        const { orderId } = await res.json();
        const [row] = await db.query<{ buyer_user_id: string | null }>(
          "select buyer_user_id from public.orders where id = $1",
          [orderId],
        );
        assert.equal(row.buyer_user_id, null, label);
      }
      await stack.settled();
    } finally {
      await stack.close();
    }
  });

  test("RLS lets a signed-in buyer read nothing of the outbox, counters, idempotency keys or rate limits, and write no order", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "50", RATE_LIMIT_PER_EMAIL: "50" } });
    try {
      const sub = crypto.randomUUID();
      const token = await mintUserToken(stack.signingKey, { sub });
      const res = await stack.post(orderBody(store), {
        Authorization: `Bearer ${token}`,
        apikey: stack.anonKey,
        "Idempotency-Key": `own-${crypto.randomUUID()}`,
      });
      assert.equal(res.status, 200);
      const { orderId } = await res.json();
      const claims = JSON.stringify({ sub, role: "authenticated" });
      const asBuyer = (sql: string) =>
        db.asRole("authenticated", async (s) => {
          await s.query("select set_config('request.jwt.claims', $1, true)", [claims]);
          return await s.query(sql);
        }).then((rows) => ({ rows: rows.length }), (error) => ({ code: (error as { code?: string }).code }));

      assert.deepEqual(await asBuyer(`select * from public.orders where id = '${orderId}'`), { rows: 1 });
      for (const table of ["email_outbox", "order_counters", "idempotency_keys", "order_rate_limits"]) {
        assert.deepEqual(await asBuyer(`select * from public.${table}`), { code: "42501" }, table);
      }
      for (
        const sql of [
          `update public.orders set status = 'cancelled' where id = '${orderId}'`,
          `delete from public.orders where id = '${orderId}'`,
          `update public.order_items set quantity = 1 where order_id = '${orderId}'`,
          `insert into public.order_status_history (order_id, to_status) values ('${orderId}', 'paid')`,
        ]
      ) {
        assert.deepEqual(await asBuyer(sql), { code: "42501" }, sql);
      }
      const [row] = await db.query<{ status: string }>("select status from public.orders where id = $1", [
        orderId,
      ]);
      assert.equal(row.status, "payment_pending");
      await stack.settled();
    } finally {
      await stack.close();
    }
  });

  test("orders keep their buyer: an update may clear buyer_user_id but never set or move it (OCM00)", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    try {
      const token = await mintUserToken(stack.signingKey, { sub: crypto.randomUUID() });
      const signedIn = await (await stack.post(orderBody(store), {
        Authorization: `Bearer ${token}`,
        apikey: stack.anonKey,
      })).json();
      const guest = await (await stack.post(orderBody(store))).json();
      // as the tables' owner: no API role updates orders at all (order_writes_test.ts)
      const update = (orderId: string, value: string | null) =>
        db.asRole(
          "postgres",
          (s) => s.query("update public.orders set buyer_user_id = $2 where id = $1", [orderId, value]),
        ).then(
          () => "updated",
          (error) => (error as { code?: string }).code,
        );
      assert.equal(await update(signedIn.orderId, crypto.randomUUID()), "OCM00");
      assert.equal(await update(guest.orderId, crypto.randomUUID()), "OCM00");
      assert.equal(await update(signedIn.orderId, null), "updated");
      await stack.settled();
    } finally {
      await stack.close();
    }
  });
}
