/**
 * The service role writes order data only through the database's functions (contract, end of "Database").
 * On Supabase, PostgREST serves every table to whoever holds the service key with service_role's grants
 * (`POST /rest/v1/orders`, `PATCH`, `DELETE`), bypassing create_order's checks. So the order tables grant
 * service_role reading only, and every function that writes runs as the tables' owner (security definer)
 * with an empty search_path, executable by service_role alone.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload, storeRowCounts } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";
import { postStatusMove } from "./support/status_moves.ts";
import { isWriter, ORDER_TABLES, publicFunctions, writerFunctions } from "./support/writer_functions.ts";

/** The SQLSTATE a statement run as `role` fails with, or "ok". */
async function _attempt(db: SqlDatabase, role: string, sql: string, params: unknown[] = []): Promise<string> {
  try {
    await db.asRole(role, (s) => s.query(sql, params));
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** A column each table can be "updated" to itself, so only the privilege decides. */
const SOME_COLUMN: Record<string, string> = {
  orders: "updated_at",
  order_items: "quantity",
  order_status_history: "changed_at",
  order_counters: "last_sequence",
  email_outbox: "status",
  payments: "received_at",
  idempotency_keys: "created_at",
  order_rate_limits: "hits",
  payment_provider_orders: "created_at",
  refunds: "attempts",
  refund_events: "received_at",
};

/** The functions that write today: the catalogue below must find each of them. */
const KNOWN_WRITERS = [
  "begin_payment",
  "claim_due_emails",
  "claim_due_refunds",
  "confirm_payment",
  "create_order",
  "keep_provider_order",
  "move_order_status",
  "prepare_email_sends",
  "purge_expired_order_guards",
  "record_email_results",
  "record_refund_event",
  "record_refund_result",
  "retry_dead_emails",
  "update_order_status",
];

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("service_role inserts, updates, deletes and truncates no row of any order table (42501), and still reads them", async (t) => {
    const store = await createTestStore(db);
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    const orderId = response.orderId;
    for (const table of ORDER_TABLES) {
      await t.step(table, async () => {
        const column = SOME_COLUMN[table];
        for (
          const sql of [
            `insert into public.${table} default values`,
            `update public.${table} set ${column} = ${column}`,
            `delete from public.${table}`,
            `truncate public.${table} cascade`,
          ]
        ) {
          assert.equal(await _attempt(db, "service_role", sql), "42501", sql);
        }
        assert.equal(await _attempt(db, "service_role", `select * from public.${table} limit 1`), "ok");
      });
    }
    const forgeries: [string, string, unknown[]][] = [
      [
        "an order with wrong amounts (a fee of 0 on a card order)",
        `insert into public.orders (store_id, order_year, payment_method, gateway_method, buyer_email, buyer_name,
           buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount)
         select store_id, order_year, payment_method, gateway_method, buyer_email, buyer_name, buyer_phone,
           shipping_address, currency, total_amount, 0, total_amount from public.orders where id = $1`,
        [orderId],
      ],
      [
        "an order of an unknown store in its own currency",
        `insert into public.orders (store_id, order_year, payment_method, gateway_method, buyer_email, buyer_name,
           buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount)
         select $2, order_year, payment_method, gateway_method, buyer_email, buyer_name, buyer_phone,
           shipping_address, 'USD', total_amount, checkout_fee, final_amount from public.orders where id = $1`,
        [orderId, crypto.randomUUID()],
      ],
      ["an order marked paid without a payment", "update public.orders set status = 'paid' where id = $1", [
        orderId,
      ]],
      [
        "a forged e-mail in the outbox",
        `insert into public.email_outbox (order_id, kind, to_email, payload) values ($1, 'status_paid', 'x@example.com', '{}')`,
        [orderId],
      ],
      ["an outbox row marked sent", "update public.email_outbox set status = 'failed' where order_id = $1", [
        orderId,
      ]],
      [
        "a payment that pays the order",
        `insert into public.payments (provider, provider_event_id, provider_payment_id, order_id, amount, currency, outcome)
         values ('razorpay', 'evt_forged', 'pay_forged', $1, 715.45, 'INR', 'paid')`,
        [orderId],
      ],
      [
        "an idempotency key that replays this order for another body",
        `insert into public.idempotency_keys (store_id, key, request_hash, order_id)
         values ($1, 'forged', repeat('0', 64), $2)`,
        [store.storeId, orderId],
      ],
      ["a rate-limit window reset", "delete from public.order_rate_limits", []],
      [
        "a provider order kept for an order, for another amount",
        `insert into public.payment_provider_orders (order_id, provider, provider_order_id, amount, currency)
         values ($1, 'razorpay', 'order_forged', 1.00, 'INR')`,
        [orderId],
      ],
      [
        "an order counter turned back",
        "update public.order_counters set last_sequence = 1 where store_id = $1",
        [
          store.storeId,
        ],
      ],
    ];
    for (const [title, sql, params] of forgeries) {
      await t.step(`${title}: 42501`, async () => {
        assert.equal(await _attempt(db, "service_role", sql, params), "42501");
      });
    }
    assert.deepEqual(await storeRowCounts(db, store.storeId), {
      orders: 1,
      items: 1,
      emails: 2,
      history: 1,
      counters: 1,
      idempotency: 0,
    });
  });

  test("every public function that writes a table is security definer with an empty search_path, owned by the tables' owner, and executable neither by anon, authenticated nor PUBLIC", async (t) => {
    const functions = await publicFunctions(db);
    const writers = writerFunctions(functions);
    const names = new Set(writers.map((fn) => fn.name));
    for (const known of KNOWN_WRITERS) assert.ok(names.has(known), `the catalogue misses ${known}`);
    const [{ owner }] = await db.query<{ owner: string }>(
      "select pg_get_userbyid(relowner) as owner from pg_class where oid = 'public.orders'::regclass",
    );
    for (const fn of writers) {
      await t.step(fn.signature, () => {
        assert.deepEqual(
          {
            securityDefiner: fn.securityDefiner,
            config: fn.config,
            owner: fn.owner,
            anon: fn.anon,
            authenticated: fn.authenticated,
            public: fn.public,
          },
          {
            securityDefiner: true,
            config: ['search_path=""'],
            owner,
            anon: false,
            authenticated: false,
            public: false,
          },
        );
      });
    }
  });

  test("over the local PostgREST the service key runs the order functions as the caller's role, never their building block move_order_status, and anon's key none", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" } });
    try {
      const created = await stack.post(orderBody(store));
      assert.equal(created.status, 200);
      const { orderId } = await created.json();
      await stack.settled();
      const moved = await postStatusMove(stack, { orderId, status: "paid" });
      assert.equal(moved.status, 200);
      await moved.body?.cancel();
      // the history names the API role that asked, not the owner the function ran as
      const history = await db.query<{ to_status: string; changed_by: string }>(
        "select to_status::text, changed_by from public.order_status_history where order_id = $1 order by id",
        [orderId],
      );
      assert.deepEqual(history, [
        { to_status: "payment_pending", changed_by: "service_role" },
        { to_status: "paid", changed_by: "service_role" },
      ]);
      const rpc = (fn: string, key: string, body: unknown) =>
        fetch(`${stack.url}/rest/v1/rpc/${fn}`, {
          method: "POST",
          headers: { apikey: key, Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      const building = await rpc("move_order_status", stack.serviceKey, {
        p_order_id: orderId,
        p_status: "cancelled",
        p_actor: "payment_gateway",
      });
      assert.equal(building.status, 403);
      assert.equal((await building.json()).code, "42501");
      const anon = await rpc("create_order", stack.anonKey, { payload: {} });
      assert.equal(anon.status, 401);
      assert.equal((await anon.json()).code, "42501");
      const read = await fetch(`${stack.url}/rest/v1/orders?select=status&id=eq.${orderId}`, {
        headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` },
      });
      assert.equal(read.status, 200);
      assert.deepEqual(await read.json(), [{ status: "paid" }]);
    } finally {
      await stack.close();
    }
  });
}

Deno.test("isWriter() sees writes through a called function and ignores readers", () => {
  const fn = (name: string, body: string) => ({ name, body });
  const all = [
    fn("writes", "insert into public.orders (id) values (1)"),
    fn("updates", "update public.email_outbox e set status = 'sent'"),
    fn("upserts", "insert into public.x as c values (1) on conflict do update set n = c.n + 1"),
    fn("deletes", "delete from public.idempotency_keys where true"),
    fn("calls_a_writer", "v := public.writes(1);"),
    fn("reads", "select 1 from public.orders o where o.updated_at > now() -- update later"),
  ];
  assert.deepEqual(all.filter((f) => isWriter(f, all)).map((f) => f.name), [
    "writes",
    "updates",
    "upserts",
    "deletes",
    "calls_a_writer",
  ]);
});

Deno.test("no TypeScript path writes a table through supabase-js: writes go through rpc()", async () => {
  const write = /\.from\(\s*["'`]\w+["'`]\s*\)[\s\S]{0,200}?\.(insert|update|upsert|delete)\s*\(/;
  const offenders: string[] = [];
  for (const root of ["supabase/functions", "local", "bench"]) {
    for await (const path of _typescriptFiles(new URL(`../${root}/`, import.meta.url))) {
      if (write.test(await Deno.readTextFile(path))) offenders.push(path.pathname);
    }
  }
  assert.deepEqual(offenders, []);
  assert.ok(write.test(`client.from("orders")\n  .update({ status: "paid" })`), "the pattern finds a write");
});

async function* _typescriptFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.isDirectory ? `${entry.name}/` : entry.name, dir);
    if (entry.isDirectory) yield* _typescriptFiles(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}
