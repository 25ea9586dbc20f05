/**
 * The go-live tasks as an outside tester ran them, with what they refuse: each refusal is one sentence
 * that says what to do, exit 2 (1 for a file's own problems), never a stack trace. And the notes an import
 * prints beside its counts. Processes, as a seller runs them.
 */
import assert from "node:assert/strict";
import { openPostgres } from "../local/open_database.ts";
import { readMigrations } from "../local/migrate.ts";
import { TEST_DATABASE_PREFIX } from "../local/reset_consent.ts";
import { POSTGRES_SERVER_URL, sharedPostgres, sharedPostgresUrl } from "./support/databases.ts";
import { runTask } from "./support/task_process.ts";

const postgresUrl = await sharedPostgresUrl();
const SAMPLE = new URL("../docs/catalogue-sample.csv", import.meta.url).pathname;
const HEADER = "sku,name,price,variant_sku,variant_name,variant_price,stock,active";
const STORE_ARGS = ["--name", "Chai & Co.", "--owner-email", "owner@chai.example"];

/** A new empty database on the test server (named as the suite's, so a later run drops it if this one cannot). */
async function emptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${TEST_DATABASE_PREFIX}${Date.now()}_${crypto.randomUUID().slice(0, 8)}`;
  const admin = openPostgres(POSTGRES_SERVER_URL, 1);
  await admin.exec(`create database ${name}`);
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    },
  };
}

async function withFile<T>(bytes: Uint8Array | string, work: (path: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/catalogue.csv`;
    if (typeof bytes === "string") await Deno.writeTextFile(path, bytes);
    else await Deno.writeFile(path, bytes);
    return await work(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const task = (name: string, env: Record<string, string>, args: string[]) =>
  runTask(name, { cwd: Deno.cwd(), env, args });

Deno.test({
  name:
    "[postgres] deno task store:add and catalogue:import on a database never migrated say to run the migrations, exit 2",
  ignore: !postgresUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const empty = await emptyDatabase();
    try {
      const total = (await readMigrations()).length;
      const sentence =
        `the database at DATABASE_URL has none of the ${total} migrations (public.stores does not ` +
        "exist there yet): run the migrations first: supabase db push (a hosted project, once supabase link " +
        "names it), or DATABASE_URL=… npx -y deno@2.9.6 task db:reset (a PostgreSQL of your own: drops and " +
        "recreates its public schema)";
      const added = await task("store:add", { DATABASE_URL: empty.url }, STORE_ARGS);
      assert.deepEqual([added.code, added.stdout, added.stderr.trim()], [2, "", `store:add: ${sentence}`]);
      const imported = await task("catalogue:import", { DATABASE_URL: empty.url }, [
        "--store",
        crypto.randomUUID(),
        SAMPLE,
      ]);
      assert.deepEqual([imported.code, imported.stderr.trim()], [2, `catalogue:import: ${sentence}`]);
    } finally {
      await empty.drop();
    }
  },
});

Deno.test({
  name:
    "[postgres] deno task catalogue:import on a database without the SKU migration names it and says to run the migrations, exit 2",
  ignore: !postgresUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = (await sharedPostgres())!;
    // the shared database without the record of the SKU migration and those after it, as a project
    // migrated before them is: restored afterwards
    const rows = await db.query<{ version: string; name: string | null; statements: string[] | null }>(
      "delete from supabase_migrations.schema_migrations where version >= '20261126200000' returning *",
    );
    try {
      const run = await task("catalogue:import", { DATABASE_URL: postgresUrl! }, [
        "--store",
        crypto.randomUUID(),
        SAMPLE,
      ]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr.trim(),
        new RegExp(
          `^catalogue:import: the database at DATABASE_URL lacks ${rows.length} of the \\d+ migrations ` +
            `\\(20261126200000_catalogue_skus, .*\\): run the migrations first: supabase db push `,
        ),
      );
    } finally {
      for (const row of rows) {
        await db.query(
          "insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)",
          [row.version, row.name, row.statements],
        );
      }
    }
  },
});

Deno.test("deno task store:add with a DATABASE_URL that is no URL says what one looks like, exit 2, never repeating it", async () => {
  const run = await task("store:add", { DATABASE_URL: "not a url with s3cret" }, STORE_ARGS);
  assert.deepEqual([run.code, run.stdout], [2, ""]);
  assert.equal(
    run.stderr.trim(),
    "store:add: DATABASE_URL is not a PostgreSQL connection string: it must look like " +
      "postgresql://<user>:<password>@<host>:5432/<database> (characters such as @ : / in the password " +
      "written %40 %3A %2F)",
  );
  const reset = await task("db:reset", { DATABASE_URL: "not a url" }, []);
  assert.deepEqual([reset.code, reset.stderr.trim()], [
    2,
    run.stderr.trim().replace(/^store:add: /, "db:reset: "),
  ]);
});

Deno.test({
  name: "[postgres] deno task store:add with sslmode=require against a server without TLS says so, exit 2",
  ignore: !postgresUrl,
  async fn() {
    const url = new URL(postgresUrl!);
    url.searchParams.set("sslmode", "require");
    const run = await task("store:add", { DATABASE_URL: url.href }, STORE_ARGS);
    assert.deepEqual([run.code, run.stdout], [2, ""]);
    assert.equal(
      run.stderr.trim(),
      `store:add: PostgreSQL at ${url.hostname}:${url.port} does not take TLS, which DATABASE_URL asks for ` +
        "(sslmode=require): leave sslmode out for a server on this machine; a hosted Supabase project takes " +
        "TLS, so check its host and port (Dashboard → Connect)",
    );
  },
});

Deno.test({
  name:
    "[postgres] deno task catalogue:import refuses a file that is not UTF-8, naming each such line, before it opens the database",
  ignore: !postgresUrl,
  async fn() {
    const text = new TextEncoder();
    const latin1 = new Uint8Array([
      ...text.encode(`${HEADER}\nL1,Latin1 caf`),
      0xe9,
      ...text.encode(",1.00,,,,,true\n"),
    ]);
    await withFile(latin1, async (path) => {
      // a database that does not answer: the file is refused first
      const run = await task("catalogue:import", { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" }, [
        "--store",
        crypto.randomUUID(),
        path,
      ]);
      assert.deepEqual([run.code, run.stdout], [1, ""]);
      assert.equal(
        run.stderr.trim(),
        `catalogue:import: ${path} has 1 problem; nothing was imported:\n` +
          "  line 2: is not UTF-8 (byte E9 at byte 14 of the line): save the file as CSV UTF-8",
      );
    });
  },
});

Deno.test({
  name:
    "[postgres] deno task catalogue:import into an inactive store imports and notes that its orders are refused, as store:add says; a 0.00 price is noted",
  ignore: !postgresUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = (await sharedPostgres())!;
    const env = { DATABASE_URL: postgresUrl! };
    const [{ id }] = await db.query<{ id: string }>(
      "insert into public.stores (name, owner_email, is_active) values ('Closed', 'o@closed.example', false) returning id::text",
    );
    await withFile(
      `${HEADER}\nFREE,Sample,0.00,,,,,\nTEA,Tea,10.00,,,,,\nTEA,,,TEA-0,Taster,0,,\n`,
      async (path) => {
        const run = await task("catalogue:import", env, ["--store", id, path]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(
          run.stdout,
          "products: inserted 2, updated 0, unchanged 0\nvariants: inserted 1, updated 0, unchanged 0\n",
        );
        const notes = run.stderr.split("\n").filter((line) => line.startsWith("catalogue:import: note: "));
        assert.deepEqual(notes, [
          `catalogue:import: note: the store "Closed" is inactive: its orders are refused (404 STORE_NOT_FOUND) ` +
          `until it is made active: update public.stores set is_active = true where id = '${id}';`,
          "catalogue:import: note: line 2, price: 0.00 gives it away; a gateway order of only such items is " +
          "below Razorpay's minimum of ₹1.00 and cannot be paid (start-payment answers 409 ORDER_NOT_PAYABLE)",
          "catalogue:import: note: line 4, variant_price: 0.00 gives it away; a gateway order of only such " +
          "items is below Razorpay's minimum of ₹1.00 and cannot be paid (start-payment answers 409 " +
          "ORDER_NOT_PAYABLE)",
        ]);
      },
    );
  },
});

Deno.test({
  name: "[postgres] deno task orders on a database without orders says so instead of an empty table",
  ignore: !postgresUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = (await sharedPostgres())!;
    const [{ n }] = await db.query<{ n: number }>("select count(*)::int as n from public.orders");
    assert.equal(n, 0, "this file places no order");
    const run = await task("orders", { DATABASE_URL: postgresUrl! }, []);
    assert.deepEqual([run.code, run.stdout.trim()], [
      0,
      "orders: the database at DATABASE_URL has no orders yet: place one with the curl that deno task dev " +
      "prints, or from its storefront (/storefront/)",
    ]);
  },
});
