/**
 * A signed-in buyer's read scales (contract, "Under concurrency, at scale, on a slow day"): among 100,000
 * orders, a buyer's select on orders, order_items and order_status_history reads their rows through an index.
 * PostgreSQL only: this file's own database (so no other file pays for the load) gets 100,000 orders from
 * bench/bulk_orders.ts, half of them 5,000 signed-in buyers' (10 each), and each read runs as PostgREST runs
 * it for the buyer's access token (role `authenticated`, the verified claims in `request.jwt.claims`), under
 * EXPLAIN (ANALYZE, BUFFERS): the buffers its execution touched stay under 100, where a sequential scan of
 * the items alone takes thousands.
 */
import assert from "node:assert/strict";
import { createSigningKey, mintUserToken, verifyUserToken } from "../local/auth_keys.ts";
import { readSql } from "../local/postgrest_read.ts";
import { queryAsRequest } from "../local/request_role.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { bulkBuyerSql, loadBulkOrders } from "../bench/bulk_orders.ts";
import { sharedPostgres } from "./support/databases.ts";

const ORDERS = 100_000;
const BUYERS = 5_000;
const MAX_BUFFERS = 100;

/** The columns `authenticated` may read, per table (history: by named columns). */
const READS: [table: string, columns: string[] | "*"][] = [
  ["orders", "*"],
  ["order_items", "*"],
  ["order_status_history", ["id", "order_id", "from_status", "to_status", "changed_at"]],
];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  Plans?: PlanNode[];
  [counter: string]: unknown;
}

/** Blocks a plan's execution touched: shared, local and temporary, hit or read (children included). */
function _buffers(plan: PlanNode): number {
  return [
    "Shared Hit Blocks",
    "Shared Read Blocks",
    "Local Hit Blocks",
    "Local Read Blocks",
    "Temp Read Blocks",
  ]
    .reduce((sum, counter) => sum + Number(plan[counter] ?? 0), 0);
}

/** The relations a plan scans sequentially. */
function _seqScans(plan: PlanNode): string[] {
  const own = plan["Node Type"] === "Seq Scan" ? [plan["Relation Name"] ?? "?"] : [];
  return [...own, ...(plan.Plans ?? []).flatMap(_seqScans)];
}

const db = await sharedPostgres();
let loaded: Promise<void> | undefined;
/** The file's database with the bulk orders, loaded once for the tests that need it. */
function withOrders(database: SqlDatabase): Promise<void> {
  return loaded ??= loadBulkOrders(database, { orders: ORDERS, signedInBuyers: BUYERS, emails: false });
}

/** A user's verified claims, as PostgREST puts them in request.jwt.claims for a Supabase access token. */
async function claimsOf(sub: string): Promise<Record<string, unknown>> {
  const key = await createSigningKey();
  const verdict = await verifyUserToken(key, await mintUserToken(key, { sub, email: "buyer@example.com" }));
  if (!("claims" in verdict)) throw new Error(`the test's own token was refused: ${verdict.refused}`);
  return verdict.claims;
}

/** The statements supabase-js's `from(table).select()` comes to: plain, and as the read route runs it. */
function statements(table: string, columns: string[] | "*"): string[] {
  const list = columns === "*" ? "*" : columns.join(", ");
  return [
    `select ${list} from public.${table}`,
    readSql(table, { columns, filters: [], order: [], limit: null }).text,
  ];
}

Deno.test({
  name:
    `[postgres] a signed-in buyer's select on orders, order_items and order_status_history reads only their rows through an index: under ${MAX_BUFFERS} buffers each among ${
      ORDERS.toLocaleString("en-US")
    } orders`,
  ignore: db === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await withOrders(db!);
    const [{ orders }] = await db!.query<{ orders: number }>(
      "select count(*)::int as orders from public.orders",
    );
    assert.ok(orders >= ORDERS, `${orders} orders in the database`);
    const [{ buyer }] = await db!.query<{ buyer: string }>(`select ${bulkBuyerSql("42")}::text as buyer`);
    const claims = await claimsOf(buyer);
    const figures: string[] = [];
    for (const [table, columns] of READS) {
      // what the buyer must see: the rows of their orders, read as the owner
      const [{ expected }] = await db!.query<{ expected: number }>(
        table === "orders"
          ? "select count(*)::int as expected from public.orders where buyer_user_id = $1"
          : `select count(*)::int as expected from public.${table} t
             join public.orders o on o.id = t.order_id where o.buyer_user_id = $1`,
        [buyer],
      );
      assert.ok(expected >= 10, `the buyer has ${expected} rows in ${table}`);
      for (const sql of statements(table, columns)) {
        await t.step(`${table}: ${sql}`, async () => {
          const [row] = await queryAsRequest<{ "QUERY PLAN": unknown }>(
            db!,
            { role: "authenticated", claims },
            `explain (analyze, buffers, format json) ${sql}`,
          );
          const raw = row["QUERY PLAN"];
          const plan = (typeof raw === "string" ? JSON.parse(raw) : raw)[0].Plan as PlanNode;
          const scanned = _seqScans(plan);
          const buffers = _buffers(plan);
          assert.deepEqual(scanned, [], `sequential scans of ${scanned.join(", ")}`);
          assert.ok(buffers < MAX_BUFFERS, `${buffers} buffers for ${expected} rows`);
          figures.push(`${table}${sql.startsWith("select coalesce") ? " (read route)" : ""} ${buffers}`);
          const rows = await queryAsRequest<{ body?: string }>(db!, { role: "authenticated", claims }, sql);
          assert.equal(rows[0].body === undefined ? rows.length : JSON.parse(rows[0].body).length, expected);
        });
      }
    }
    console.log(`buffers of a buyer's reads among ${orders} orders: ${figures.join(", ")}`);
  },
});

Deno.test({
  name: `[postgres] a signed-in user with no order reads none among ${
    ORDERS.toLocaleString("en-US")
  } orders, under ${MAX_BUFFERS} buffers per table`,
  ignore: db === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await withOrders(db!);
    const claims = await claimsOf(crypto.randomUUID());
    for (const [table, columns] of READS) {
      const sql = statements(table, columns)[0];
      const [row] = await queryAsRequest<{ "QUERY PLAN": unknown }>(
        db!,
        { role: "authenticated", claims },
        `explain (analyze, buffers, format json) ${sql}`,
      );
      const raw = row["QUERY PLAN"];
      const plan = (typeof raw === "string" ? JSON.parse(raw) : raw)[0].Plan as PlanNode;
      assert.equal(plan["Actual Rows"], 0, table);
      assert.ok(_buffers(plan) < MAX_BUFFERS, `${table}: ${_buffers(plan)} buffers`);
    }
  },
});
