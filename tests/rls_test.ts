/**
 * Row level security and grants: `anon` and `authenticated` read and write nothing outside the catalogue,
 * table by table and role by role, on PGlite and (when reachable) PostgreSQL, the latter twice: migrated
 * with no default privileges (new Supabase projects) and with the old permissive ones.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { permissivePostgres, testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { orderBody } from "./support/order_request.ts";

const PRIVATE_TABLES = [
  "orders",
  "order_items",
  "order_counters",
  "order_status_history",
  "email_outbox",
  "idempotency_keys",
  "order_rate_limits",
  "payments",
  "payment_provider_orders",
  "order_settings",
  "refund_events",
];
const UPDATABLE_COLUMN: Record<string, string> = {
  order_counters: "updated_at",
  order_status_history: "changed_at",
  order_rate_limits: "hits",
  payments: "received_at",
  order_settings: "store_order_slots",
  refund_events: "received_at",
};
const CATALOGUE_TABLES = ["stores", "products", "product_variants"];
const ROLES = ["anon", "authenticated"];

/** The statement's outcome for `role`: the rows it saw or changed, or the SQLSTATE that refused it. */
async function _attempt(
  db: Awaited<ReturnType<typeof testDatabases>>[number]["db"],
  role: string,
  sql: string,
) {
  try {
    const rows = await db.asRole(role, (s) => s.query(sql));
    return { rows: rows.length };
  } catch (error) {
    return { code: (error as { code?: string }).code ?? "?" };
  }
}

const permissive = await permissivePostgres();
const setups = [
  ...(await testDatabases()).map(({ name, db }) => ({ name, db, defaults: "" })),
  ...(permissive
    ? [{ name: "postgres", db: permissive, defaults: " (old permissive default privileges)" }]
    : []),
];

for (const { name, db, defaults } of setups) {
  Deno.test({
    name:
      `[${name}] RLS and grants deny anon and authenticated every read and write of order data${defaults}`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      // at least one row in every table, so a read that is allowed would see something
      const store = await createTestStore(db);
      const stack = await startTestStack({
        db,
        env: { RATE_LIMIT_PER_IP: "5", RATE_LIMIT_PER_EMAIL: "5" },
      });
      try {
        const res = await stack.post(orderBody(store), { "Idempotency-Key": `rls-${crypto.randomUUID()}` });
        assert.equal(res.status, 200);
        await stack.settled();
      } finally {
        await stack.close();
      }
      for (const table of PRIVATE_TABLES) {
        for (const role of ROLES) {
          await t.step(`${role} on ${table}`, async () => {
            const read = await _attempt(db, role, `select * from public.${table} limit 5`);
            assert.ok(read.code === "42501" || read.rows === 0, `${role} read ${JSON.stringify(read)}`);
            for (
              const sql of [
                `insert into public.${table} default values`,
                `update public.${table} set ${UPDATABLE_COLUMN[table] ?? "created_at"} = ${
                  UPDATABLE_COLUMN[table] ?? "created_at"
                }`,
                `delete from public.${table}`,
              ]
            ) {
              const write = await _attempt(db, role, sql);
              assert.ok(
                write.code === "42501" || write.rows === 0,
                `${role}: ${sql} gave ${JSON.stringify(write)}`,
              );
            }
          });
        }
      }
      const [counts] = await db.query<{ orders: number }>(
        "select count(*)::int as orders from public.orders",
      );
      assert.ok(counts.orders >= 1, "the order rows survived every attempt");
      for (const table of CATALOGUE_TABLES) {
        for (const role of ROLES) {
          await t.step(`${role} writes no ${table}`, async () => {
            for (const sql of [`insert into public.${table} default values`, `delete from public.${table}`]) {
              const write = await _attempt(db, role, sql);
              assert.equal(write.code, "42501", `${role}: ${sql} gave ${JSON.stringify(write)}`);
            }
            const update = await _attempt(db, role, `update public.${table} set name = 'x'`);
            assert.ok(update.code === "42501" || update.rows === 0, JSON.stringify(update));
          });
        }
      }
      for (const role of ROLES) {
        await t.step(`${role} reads no owner_email and executes no order function`, async () => {
          assert.equal((await _attempt(db, role, "select owner_email from public.stores")).code, "42501");
          for (
            const call of [
              "select public.create_order('{}'::jsonb)",
              "select public.claim_due_emails(1, 1, 0, 0, 1000, 0)",
              "select public.record_email_results('[]'::jsonb)",
              "select public.dead_emails(10)",
              "select public.prepare_email_sends('[]'::jsonb)",
              "select public.retry_dead_emails()",
              "select public.purge_expired_order_guards()",
              `select public.order_response('${crypto.randomUUID()}')`,
              `select public.update_order_status('paid', '${crypto.randomUUID()}')`,
              `select public.move_order_status('${crypto.randomUUID()}', 'paid', 'seller')`,
              "select public.cancel_unpaid_orders(30, 72)",
              `select public.confirm_payment('${crypto.randomUUID()}', 100, 'INR', 'razorpay', 'pay_1', 'evt_1')`,
            ]
          ) {
            assert.equal((await _attempt(db, role, call)).code, "42501", call);
          }
        });
      }
    },
  });
}
