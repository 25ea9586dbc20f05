/**
 * supabase/functions/_shared/database.types.ts is what Supabase's own generator (@supabase/postgres-meta, the
 * version supabase CLI 2.117.0 runs for `supabase gen types typescript`) prints for the migrated database,
 * unchanged: a migration that changes a table or a function without `deno task gen:types` fails here.
 */
import assert from "node:assert/strict";
import { DATABASE_TYPES_FILE, typesOfMigrations } from "../local/gen_types.ts";
import { generateTypes, postgresMetaVersion } from "../local/postgres_meta.ts";
import { sharedPostgresUrl } from "./support/databases.ts";

const STALE =
  "supabase/functions/_shared/database.types.ts is stale: run `deno task gen:types` and commit it";

Deno.test("[pglite] database.types.ts is what @supabase/postgres-meta prints for the migrations (deno task gen:types)", async () => {
  const committed = await Deno.readTextFile(DATABASE_TYPES_FILE);
  assert.ok((await typesOfMigrations()) === committed, STALE);
});

Deno.test({
  name: "[postgres] database.types.ts is what @supabase/postgres-meta prints for the migrated PostgreSQL",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const url = await sharedPostgresUrl();
    if (!url) return void await t.step({ name: "PostgreSQL not reachable", ignore: true, fn() {} });
    const committed = await Deno.readTextFile(DATABASE_TYPES_FILE);
    assert.ok((await generateTypes(url)) === committed, STALE);
  },
});

Deno.test("the type generator is @supabase/postgres-meta 0.99.0, supabase CLI 2.117.0's, every dependency locked", async () => {
  assert.equal(await postgresMetaVersion(), "0.99.0");
  const lock = JSON.parse(
    await Deno.readTextFile(new URL("../local/postgres_meta/package-lock.json", import.meta.url)),
  );
  assert.equal(lock.packages["node_modules/@supabase/postgres-meta"].version, "0.99.0");
  assert.deepEqual(lock.packages[""].dependencies, { "@supabase/postgres-meta": "0.99.0" });
  for (const [path, entry] of Object.entries(lock.packages as Record<string, { integrity?: string }>)) {
    if (path !== "") assert.ok(entry.integrity, `${path} has no integrity in the lock`);
  }
});

Deno.test("the generated types carry what the hand-written ones missed: computed fields such as email_outbox_message", async () => {
  const committed = await Deno.readTextFile(DATABASE_TYPES_FILE);
  assert.match(committed, /email_outbox: \{\n\s+Row: \{[^}]*email_outbox_message: Json \| null/);
});
