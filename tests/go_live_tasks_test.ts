/**
 * The go-live tasks as a seller runs them (contract, "Going live"), as processes: `deno task store:add`
 * prints the store's id (the same one twice), `deno task catalogue:import` prints what it inserted, updated
 * and left unchanged, and a bad file prints every problem and writes nothing. Over PostgreSQL at
 * DATABASE_URL, as on a hosted project, and over the local stack's PGlite when DATABASE_URL is not set.
 */
import assert from "node:assert/strict";
import { sharedPostgres, sharedPostgresUrl } from "./support/databases.ts";
import { runTask } from "./support/task_process.ts";

const SAMPLE = new URL("../docs/catalogue-sample.csv", import.meta.url).pathname;
const postgresUrl = await sharedPostgresUrl();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n$/;

Deno.test({
  name:
    "[postgres] deno task store:add prints the new store's id, and the same id for the same name and owner",
  ignore: !postgresUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const name = `Chai & Co. ${crypto.randomUUID().slice(0, 8)}`;
    const args = ["--name", name, "--owner-email=owner@chai.example", "--time-zone", "Asia/Kolkata"];
    const env = { DATABASE_URL: postgresUrl! };
    const first = await runTask("store:add", { cwd: Deno.cwd(), env, args });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, UUID);
    const host = new URL(postgresUrl!);
    assert.equal(
      first.stderr.trim(),
      `store:add: added ${
        JSON.stringify(name)
      } (owner owner@chai.example, INR, Asia/Kolkata) to PostgreSQL at ` +
        `${host.host}${host.pathname} (DATABASE_URL)`,
    );
    const again = await runTask("store:add", { cwd: Deno.cwd(), env, args });
    assert.deepEqual([again.code, again.stdout], [0, first.stdout]);
    assert.match(again.stderr, /exists already/);

    const refused = await runTask("store:add", {
      cwd: Deno.cwd(),
      env,
      args: ["--name", name, "--owner-email", "nobody"],
    });
    assert.deepEqual([refused.code, refused.stdout], [2, ""]);
    assert.equal(
      refused.stderr.trim(),
      'store:add: --owner-email must be an e-mail address such as owner@shop.example: got "nobody"',
    );
  },
});

Deno.test({
  name:
    "[postgres] deno task catalogue:import prints inserted, updated and unchanged; twice the same file changes nothing; a bad file writes nothing and names every bad line",
  ignore: !postgresUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = (await sharedPostgres())!;
    const env = { DATABASE_URL: postgresUrl! };
    const added = await runTask("store:add", {
      cwd: Deno.cwd(),
      env,
      args: ["--name", `Import ${crypto.randomUUID().slice(0, 8)}`, "--owner-email", "owner@import.example"],
    });
    const storeId = added.stdout.trim();
    const imported = await runTask("catalogue:import", {
      cwd: Deno.cwd(),
      env,
      args: ["--store", storeId, SAMPLE],
    });
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(
      imported.stdout,
      "products: inserted 4, updated 0, unchanged 0\nvariants: inserted 2, updated 0, unchanged 0\n",
    );
    const again = await runTask("catalogue:import", {
      cwd: Deno.cwd(),
      env,
      args: [`--store=${storeId}`, SAMPLE],
    });
    assert.equal(
      again.stdout,
      "products: inserted 0, updated 0, unchanged 4\nvariants: inserted 0, updated 0, unchanged 2\n",
    );

    const dir = await Deno.makeTempDir();
    try {
      const bad = `${dir}/bad.csv`;
      const sample = await Deno.readTextFile(SAMPLE);
      // a good edit (a price) beside two bad lines: the good one must not be written either
      await Deno.writeTextFile(
        bad,
        sample.replace("ASSAM-250,Assam Tea 250 g,349.00", "ASSAM-250,Assam Tea 250 g,379.00") +
          "MUG,Mug,12.345,,,,,\nMUG,,,MUG-S,Small,,many,\n",
      );
      const refused = await runTask("catalogue:import", {
        cwd: Deno.cwd(),
        env,
        args: ["--store", storeId, bad],
      });
      assert.deepEqual([refused.code, refused.stdout], [1, ""]);
      assert.equal(
        refused.stderr.trim(),
        [
          `catalogue:import: ${bad} has 2 problems; nothing was imported:`,
          '  line 8, price: must be an amount in rupees such as 349.00 (digits, at most 2 decimals, no currency sign or thousands separator): got "12.345"',
          '  line 9, stock: must be a whole number from 0 to 2147483647, or empty (not tracked): got "many"',
        ].join("\n"),
      );
      const [{ price }] = await db.query<{ price: string }>(
        "select price::text from public.products where store_id = $1 and sku = 'ASSAM-250'",
        [storeId],
      );
      assert.equal(price, "349.00");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }

    const usage = await runTask("catalogue:import", {
      cwd: Deno.cwd(),
      env,
      args: ["--store", "shop-1", SAMPLE],
    });
    assert.deepEqual([usage.code, usage.stderr.trim()], [
      2,
      'catalogue:import: --store must be a store\'s id (a UUID, as deno task store:add prints it): got "shop-1"',
    ]);
  },
});

Deno.test({
  name:
    "deno task catalogue:import without DATABASE_URL imports docs/catalogue-sample.csv into the local stack's seeded store: the seed's rows unchanged, the gift box added",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cwd = await Deno.makeTempDir();
    try {
      const run = await runTask("catalogue:import", {
        cwd,
        env: { DATABASE_URL: "" },
        args: ["--store", "11111111-1111-4111-8111-111111111111", SAMPLE],
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(
        run.stdout,
        "products: inserted 1, updated 0, unchanged 3\nvariants: inserted 0, updated 0, unchanged 2\n",
      );
      assert.match(run.stderr, /at the local stack's PGlite in \.local\/db\/ \(DATABASE_URL is not set\)/);
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
