/** `deno task db:reset` drops a database's public schema without `--yes` only where nothing can be lost. */
import assert from "node:assert/strict";
import { isTestDatabaseName, resetRefusal, type ResetTarget } from "../local/reset_consent.ts";
import { openPostgres } from "../local/open_database.ts";
import { createTestDatabase, POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";
import { runTask } from "./support/task_process.ts";

const TABLES = ["email_outbox", "idempotency_keys", "order_counters", "order_items", "orders"];

function target(url: string, publicRelations: string[] = [], publicFunctions = 0): ResetTarget {
  return { url: new URL(url), publicRelations, publicFunctions };
}

Deno.test("resetRefusal() lets an empty local database or a test's database go without --yes, and nothing else", async (t) => {
  const cases: [string, ResetTarget, boolean, string | null][] = [
    ["an empty database on 127.0.0.1", target("postgres://postgres@127.0.0.1:5432/shop"), false, null],
    ["an empty database on localhost", target("postgres://u@localhost/shop"), false, null],
    [
      "an empty database behind a Unix socket",
      target("postgres:///shop?host=/var/run/postgresql"),
      false,
      null,
    ],
    [
      "a test's database on another host, with tables",
      target("postgres://u@db.example.com/create_order_test_1795430000000_0a1b2c3d", TABLES),
      false,
      null,
    ],
    ["a local database with tables, told --yes", target("postgres://u@127.0.0.1/shop", TABLES), true, null],
    [
      "a local database with tables",
      target("postgres://u@127.0.0.1/shop", TABLES),
      false,
      "db:reset: shop on 127.0.0.1 would lose its public schema and every row in it (its public schema holds " +
      "email_outbox, idempotency_keys, order_counters, order_items, … (5 tables, views and sequences)). If " +
      "that is what you want, run it again with --yes: DATABASE_URL='postgres://u@127.0.0.1/shop' npx -y " +
      "deno@2.9.6 task db:reset --yes",
    ],
    [
      "a local database with functions only",
      target("postgres://u@127.0.0.1/shop", [], 2),
      false,
      "db:reset: shop on 127.0.0.1 would lose its public schema and every row in it (its public schema holds " +
      "2 functions). If that is what you want, run it again with --yes: " +
      "DATABASE_URL='postgres://u@127.0.0.1/shop' npx -y deno@2.9.6 task db:reset --yes",
    ],
    [
      "a local database with one function only",
      target("postgres://u@127.0.0.1/shop", [], 1),
      false,
      "db:reset: shop on 127.0.0.1 would lose its public schema and every row in it (its public schema holds " +
      "1 function). If that is what you want, run it again with --yes: " +
      "DATABASE_URL='postgres://u@127.0.0.1/shop' npx -y deno@2.9.6 task db:reset --yes",
    ],
    [
      "an empty database elsewhere, whose password the hint does not repeat",
      target("postgres://u:s3cret@db.example.com:6543/postgres?sslmode=require"),
      false,
      "db:reset: postgres on db.example.com would lose its public schema and every row in it (it is not on " +
      "this machine). If that is what you want, run it again with --yes: " +
      "DATABASE_URL='postgres://u:<password>@db.example.com:6543/postgres?sslmode=require' npx -y deno@2.9.6 " +
      "task db:reset --yes",
    ],
    [
      "a database named like a test's but not one",
      target("postgres://u@127.0.0.1/create_order_test_mine", ["orders"]),
      false,
      "db:reset: create_order_test_mine on 127.0.0.1 would lose its public schema and every row in it (its " +
      "public schema holds orders (1 table, view or sequence)). If that is what you want, run it again with " +
      "--yes: DATABASE_URL='postgres://u@127.0.0.1/create_order_test_mine' npx -y deno@2.9.6 task db:reset --yes",
    ],
  ];
  for (const [name, given, yes, expected] of cases) {
    await t.step(name, () => assert.equal(resetRefusal(given, yes), expected));
  }
});

Deno.test("isTestDatabaseName() knows the names tests/support/databases.ts makes, and only those", () => {
  assert.equal(isTestDatabaseName("create_order_test_1795430000000_0a1b2c3d"), true);
  assert.equal(isTestDatabaseName("create_order_test_1795430000000_0a1b2c3d_x"), false);
  assert.equal(isTestDatabaseName("create_order_test_orders"), false);
  assert.equal(isTestDatabaseName("orders"), false);
});

Deno.test({
  name:
    "[postgres] db:reset migrates an empty local database unasked, then refuses to drop it without --yes, exit 2, and drops it with --yes",
  ignore: !(await postgresReachable()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // not a test database's name: db:reset must treat it as anyone's database (dropped by this run all the same)
    const { name, url: href } = await createTestDatabase(
      `create_order_consent_${crypto.randomUUID().slice(0, 8)}`,
    );
    const url = new URL(href);
    const admin = openPostgres(POSTGRES_SERVER_URL, 1);
    const db = openPostgres(url.href, 1);
    const storeName = async () =>
      (await db.query<{ name: string }>(
        "select name from public.stores where id = '11111111-1111-4111-8111-111111111111'",
      ))[0].name;
    try {
      const env = { DATABASE_URL: url.href };
      const first = await runTask("db:reset", { cwd: Deno.cwd(), env });
      assert.equal(first.code, 0, first.stderr);
      await db.exec(
        "update public.stores set name = 'A day of work' where id = '11111111-1111-4111-8111-111111111111'",
      );

      const refused = await runTask("db:reset", { cwd: Deno.cwd(), env });
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr.trim(),
        new RegExp(
          `^db:reset: ${name} on 127\\.0\\.0\\.1 would lose its public schema and every row in it \\(its public schema holds \\w+, `,
        ),
      );
      assert.equal(await storeName(), "A day of work");

      const told = await runTask("db:reset", { cwd: Deno.cwd(), env, args: ["--yes"] });
      assert.equal(told.code, 0, told.stderr);
      assert.equal(told.stdout.trim(), `db:reset: migrations and seed applied to ${name}`);
      assert.equal(await storeName(), "Chai & Co.");
    } finally {
      await db.close();
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  },
});
