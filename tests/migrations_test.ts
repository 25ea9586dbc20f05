import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { readMigrations, resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import { pgliteDatabase } from "../local/sql_database.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import {
  createTestDatabase,
  permissivePostgres,
  POSTGRES_SERVER_URL,
  postgresReachable,
  sharedPostgres,
} from "./support/databases.ts";
import { ORDER_STATUSES } from "./support/lifecycle.ts";
import { apiRolePrivileges } from "./support/privileges.ts";

const TABLES = [
  "email_outbox",
  "idempotency_keys",
  "order_counters",
  "order_items",
  "order_rate_limits",
  "order_settings",
  "order_status_history",
  "orders",
  "payment_provider_orders",
  "payments",
  "product_variants",
  "products",
  "refund_events",
  "refunds",
  "stores",
];

Deno.test("readMigrations() lists the migrations in timestamp order, each opening with a comment", async () => {
  const migrations = await readMigrations();
  assert.deepEqual(migrations.map((m) => m.name), [...migrations.map((m) => m.name)].sort());
  for (const migration of migrations) {
    assert.match(migration.name, /^\d{14}_[a-z_]+\.sql$/);
    assert.ok(migration.sql.startsWith("-- "), `${migration.name} must open with a comment on its purpose`);
  }
});

async function assertSchema(query: (sql: string) => Promise<Record<string, unknown>[]>) {
  const tables = await query(
    "select tablename, rowsecurity from pg_tables where schemaname = 'public' order by tablename",
  );
  assert.deepEqual(tables.map((t) => t.tablename), TABLES);
  assert.ok(tables.every((t) => t.rowsecurity === true), "row level security is on for every table");
  const statuses = await query("select unnest(enum_range(null::public.order_status))::text as s");
  assert.deepEqual(statuses.map((r) => r.s), ORDER_STATUSES);
  const seeded = await query("select count(*)::int as n from public.products");
  assert.equal(seeded[0].n, 4);
}

Deno.test({
  name: "[pglite] resetDatabase() applies every migration and the seed, twice in a row",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = pgliteDatabase(await PGlite.create());
    try {
      await resetDatabase(db);
      await resetDatabase(db, { dropExisting: true });
      await assertSchema((sql) => db.query(sql));
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name:
    "[postgres] db:reset creates the schema on a fresh database twice in a row, where no API role may create objects",
  ignore: !(await postgresReachable()),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { name, url: href } = await createTestDatabase();
    const url = new URL(href);
    const admin = openPostgres(POSTGRES_SERVER_URL, 1);
    try {
      for (let run = 0; run < 2; run++) {
        const command = new Deno.Command(Deno.execPath(), {
          args: ["task", "--quiet", "db:reset"],
          env: { DATABASE_URL: url.href, NO_COLOR: "1" },
          cwd: new URL("..", import.meta.url),
          stdout: "piped",
          stderr: "piped",
        });
        const output = await command.output();
        assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      }
      const db = openPostgres(url.href, 1);
      try {
        await assertSchema((sql) => db.query(sql));
        // pins a past bug: the recreated schema granted CREATE to PUBLIC, so anon could add its own
        // overload of create_order beside ours
        const creators = await db.query<{ role: string }>(
          `select r.rolname as role from pg_roles r
           where r.rolname in ('anon', 'authenticated', 'service_role')
             and has_schema_privilege(r.rolname, 'public', 'CREATE')`,
        );
        assert.deepEqual(creators, []);
        const users = await db.query<{ role: string }>(
          `select r.rolname as role from pg_roles r
           where r.rolname in ('anon', 'authenticated', 'service_role')
             and has_schema_privilege(r.rolname, 'public', 'USAGE') order by 1`,
        );
        assert.deepEqual(users.map((u) => u.role), ["anon", "authenticated", "service_role"]);
      } finally {
        await db.close();
      }
    } finally {
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  },
});

Deno.test({
  name: "[postgres] db:reset on a database that does not exist says so and how to create it, exit 2",
  ignore: !(await postgresReachable()),
  async fn() {
    const url = new URL(POSTGRES_SERVER_URL);
    url.pathname = `/create_order_missing_${crypto.randomUUID().slice(0, 8)}`;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "db:reset"],
      env: { DATABASE_URL: url.href, NO_COLOR: "1" },
      cwd: new URL("..", import.meta.url),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 2);
    const name = url.pathname.slice(1);
    assert.equal(
      new TextDecoder().decode(output.stderr).trim(),
      `db:reset: database ${name} does not exist: create it first (createdb ${name})`,
    );
  },
});

/** Privileges the service cannot work without, stated by the migrations themselves. */
const SERVICE_NEEDS = [
  "function create_order(payload jsonb) service_role EXECUTE",
  "function claim_due_emails(p_batch_limit integer, p_alone_limit integer, p_min_age_seconds integer, p_stale_after_seconds integer, p_claim_ms integer, p_run_ms integer, p_deadline timestamp with time zone) service_role EXECUTE",
  "function record_email_results(p_results jsonb, p_deadline timestamp with time zone) service_role EXECUTE",
  "function dead_emails(p_limit integer) service_role EXECUTE",
  "function prepare_email_sends(p_claims jsonb, p_batch_key text, p_deadline timestamp with time zone) service_role EXECUTE",
  "function retry_dead_emails(p_ids uuid[], p_deadline timestamp with time zone) service_role EXECUTE",
  "function purge_expired_order_guards(p_idempotency_hours integer, p_rate_limit_hours integer) service_role EXECUTE",
  "function update_order_status(p_status text, p_order_id uuid, p_store_id uuid, p_order_number text, p_note text, p_carrier text, p_tracking_number text, p_tracking_url text, p_deadline timestamp with time zone) service_role EXECUTE",
  "function confirm_payment(p_order_id text, p_amount_minor bigint, p_currency text, p_provider text, p_provider_payment_id text, p_event_id text, p_deadline timestamp with time zone, p_method text, p_provider_order_id text) service_role EXECUTE",
  "function cancel_unpaid_orders(p_gateway_minutes integer, p_upi_direct_hours integer, p_limit integer, p_deadline timestamp with time zone) service_role EXECUTE",
  "function claim_due_refunds(p_limit integer, p_min_age_seconds integer, p_claim_ms integer, p_run_ms integer) service_role EXECUTE",
  "function record_refund_result(p_refund_id uuid, p_claim_token uuid, p_provider_refund_id text, p_provider_status text, p_error text, p_release boolean, p_max_attempts integer) service_role EXECUTE",
  "function record_refund_event(p_provider text, p_event_id text, p_provider_payment_id text, p_provider_refund_id text, p_receipt text, p_status text, p_deadline timestamp with time zone) service_role EXECUTE",
  "function failed_refunds(p_limit integer) service_role EXECUTE",
  "table payments service_role SELECT",
  "table refunds service_role SELECT",
  "table refund_events service_role SELECT",
  "table orders service_role SELECT",
  "table email_outbox service_role SELECT",
  "table products service_role INSERT",
  "table products anon SELECT",
];

/** The two privilege lists must be equal, hold the service's needs, and give PUBLIC no function. */
function assertSamePrivileges(none: string[], permissive: string[]) {
  assert.deepEqual(
    permissive.filter((line) => !none.includes(line)),
    [],
    "granted only by the old permissive defaults",
  );
  assert.deepEqual(none.filter((line) => !permissive.includes(line)), [], "granted only without defaults");
  for (const line of SERVICE_NEEDS) assert.ok(none.includes(line), `missing: ${line}`);
  assert.deepEqual(none.filter((line) => / PUBLIC /.test(line)), [], "PUBLIC executes no function");
}

Deno.test({
  name:
    "[pglite] the migrations give the API roles the same privileges with no default privileges and with the old permissive ones",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const lists: string[][] = [];
    for (const defaultPrivileges of ["none", "permissive"] as const) {
      const db = pgliteDatabase(await PGlite.create());
      try {
        await resetDatabase(db, { defaultPrivileges });
        lists.push(await apiRolePrivileges(db));
      } finally {
        await db.close();
      }
    }
    assertSamePrivileges(lists[0], lists[1]);
  },
});

Deno.test({
  name:
    "[postgres] the migrations give the API roles the same privileges with no default privileges and with the old permissive ones",
  ignore: !(await postgresReachable()),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const none = (await sharedPostgres()) as SqlDatabase;
    const permissive = (await permissivePostgres()) as SqlDatabase;
    try {
      assertSamePrivileges(await apiRolePrivileges(none), await apiRolePrivileges(permissive));
    } finally {
      await permissive.close();
    }
  },
});
