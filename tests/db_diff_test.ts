/**
 * `deno task db:diff`: on this tree it has nothing to write (supabase/schemas/ is what the migrations
 * leave); after a change to a schema file it writes the migration that makes that change, after which it has
 * nothing to write again.
 */
import assert from "node:assert/strict";
import { givenVersionProblem, nextMigrationVersion, parseDbDiffArgs } from "../local/db_diff_args.ts";
import { TaskUsageError } from "../local/task_flags.ts";
import { POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";

const ROOT = new URL("..", import.meta.url);
const reachable = await postgresReachable();
if (!reachable) {
  console.warn(
    `notice: PostgreSQL is not reachable at ${new URL(POSTGRES_SERVER_URL).host}; db:diff is not run`,
  );
}

/** Runs `deno task db:diff <args>` in `cwd` against the test server (or `server`). */
async function dbDiff(
  cwd: URL,
  args: string[],
  server = POSTGRES_SERVER_URL,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "db:diff", ...args],
    cwd,
    env: { DATABASE_URL: server, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: output.code, stdout: text.decode(output.stdout), stderr: text.decode(output.stderr) };
}

/** A copy of what the task reads (deno.json, local/, supabase/'s schemas and migrations) in a temporary folder. */
async function copyOfTheProject(): Promise<URL> {
  const dir = new URL(`file://${await Deno.makeTempDir({ prefix: "db_diff_test_" })}/`);
  for (const file of ["deno.json", "deno.lock"]) await Deno.copyFile(new URL(file, ROOT), new URL(file, dir));
  for (const folder of ["local/", "supabase/schemas/", "supabase/migrations/"]) {
    await _copyFolder(new URL(folder, ROOT), new URL(folder, dir));
  }
  return dir;
}

async function _copyFolder(from: URL, to: URL): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await _copyFolder(new URL(`${entry.name}/`, from), new URL(`${entry.name}/`, to));
    else await Deno.copyFile(new URL(entry.name, from), new URL(entry.name, to));
  }
}

Deno.test({
  name: "[postgres] db:diff --check on this tree: nothing to write, exit 0",
  ignore: !reachable,
  async fn() {
    const { code, stdout, stderr } = await dbDiff(ROOT, ["--check"]);
    assert.equal(code, 0, stdout + stderr);
    assert.equal(
      stdout,
      "db:diff: nothing to write: the migrations leave the database supabase/schemas/ describes\n",
    );
  },
});

Deno.test({
  name:
    "[postgres] db:diff <name> after a change to a schema file writes a migration that makes it; --check then finds nothing",
  ignore: !reachable,
  async fn() {
    const dir = await copyOfTheProject();
    try {
      const catalogue = new URL("supabase/schemas/10_catalogue.sql", dir);
      await Deno.writeTextFile(
        catalogue,
        "\n-- the stores by name, for the seller's back office\ncreate index stores_name_idx on public.stores (name);\n",
        { append: true },
      );

      const before = await dbDiff(dir, ["--check"]);
      assert.equal(before.code, 1, before.stdout + before.stderr);
      assert.match(before.stdout, /CREATE INDEX stores_name_idx ON public\.stores USING btree \(name\);/);

      const written = await dbDiff(dir, ["add_stores_name_index", "--version", "20991231000000"]);
      assert.equal(written.code, 0, written.stdout + written.stderr);
      assert.equal(
        written.stdout,
        "db:diff: wrote supabase/migrations/20991231000000_add_stores_name_index.sql: review it, say why at its top\n",
      );
      const migration = await Deno.readTextFile(
        new URL("supabase/migrations/20991231000000_add_stores_name_index.sql", dir),
      );
      assert.equal(
        migration,
        "-- add stores name index: written by `deno task db:diff` from supabase/schemas/; say here why.\n\n" +
          "CREATE INDEX stores_name_idx ON public.stores USING btree (name);\n",
      );

      const after = await dbDiff(dir, ["--check"]);
      assert.equal(after.code, 0, after.stdout + after.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "[postgres] db:diff names a revoke pg-delta leaves out, which a project whose default privileges grant everything would miss; written by hand, --check finds nothing",
  ignore: !reachable,
  async fn() {
    const dir = await copyOfTheProject();
    try {
      await Deno.writeTextFile(
        new URL("supabase/schemas/10_catalogue.sql", dir),
        `
-- how many products a store has, for the seller's back office
create or replace function public.store_product_count(p_store_id uuid)
returns bigint
language sql
stable
set search_path = ''
as $$
  select count(*) from public.products where store_id = p_store_id;
$$;

revoke execute on function public.store_product_count(uuid) from public, anon, authenticated, service_role;
grant execute on function public.store_product_count(uuid) to service_role, authenticated;
`,
        { append: true },
      );
      const written = await dbDiff(dir, ["add_store_product_count", "--version", "20991231000000"]);
      assert.equal(written.code, 1, written.stdout + written.stderr);
      // the grants in another order are the same privileges: only anon's EXECUTE differs
      assert.equal(
        written.stderr.split("\n").filter((line) => line.startsWith("on a project")).join("\n"),
        "on a project whose default privileges grant everything to the API roles: function " +
          'store_product_count(uuid): line 9: migrations " | {anon=X/postgres,authenticated=X/postgres,' +
          'postgres=X/postgres,service_role=X/postgres} | postgres", schemas " | {authenticated=X/postgres,' +
          'postgres=X/postgres,service_role=X/postgres} | postgres"',
      );
      const migration = new URL("supabase/migrations/20991231000000_add_store_product_count.sql", dir);
      await Deno.writeTextFile(
        migration,
        'REVOKE EXECUTE ON FUNCTION "public"."store_product_count"(uuid) FROM "anon";\n',
        { append: true },
      );
      const after = await dbDiff(dir, ["--check"]);
      assert.equal(after.code, 0, after.stdout + after.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("db:diff builds nothing on a server elsewhere (a hosted project's DATABASE_URL): exit 2, saying so", async () => {
  const { code, stdout, stderr } = await dbDiff(
    ROOT,
    ["--check"],
    "postgres://postgres:secret@db.example.com:5432/postgres",
  );
  assert.equal(code, 2, stdout + stderr);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    "db:diff: DATABASE_URL names a server elsewhere; db:diff builds its scratch databases on a PostgreSQL " +
      "of this machine: unset DATABASE_URL (for postgres://postgres@127.0.0.1:5432/postgres), or point it at " +
      "one here\n",
  );
});

Deno.test("db:diff's arguments: --check alone, or one name of lower-case words with an optional --version", () => {
  assert.deepEqual(parseDbDiffArgs(["--check"]), { check: true });
  assert.deepEqual(parseDbDiffArgs(["store_phone"]), {
    check: false,
    name: "store_phone",
    version: undefined,
  });
  assert.deepEqual(parseDbDiffArgs(["store_phone", "--version=20261201000000"]), {
    check: false,
    name: "store_phone",
    version: "20261201000000",
  });
  for (
    const refused of [
      [],
      ["a", "b"],
      ["--check", "store_phone"],
      ["Store-Phone"],
      ["x", "--version", "2026"],
      [
        "x",
        "--force",
      ],
    ]
  ) {
    assert.throws(() => parseDbDiffArgs(refused), TaskUsageError, JSON.stringify(refused));
  }
});

Deno.test("db:diff's migration version: the clock's UTC time, or past the newest migration when that is ahead", () => {
  const now = new Date("2026-12-01T10:20:30.456Z");
  assert.equal(nextMigrationVersion(["20261126000100_catalogue.sql"], now), "20261201102030");
  assert.equal(nextMigrationVersion([], now), "20261201102030");
  assert.equal(
    nextMigrationVersion(["20261126000100_catalogue.sql", "20261226310000_later.sql"], now),
    "20261226310100",
  );
});

Deno.test("db:diff's --version comes after every migration: one of a landed version, or older, is refused", () => {
  const names = ["20261126340000_a.sql", "20261126340100_b.sql"];
  assert.equal(givenVersionProblem("20991231000000", names), null);
  assert.equal(givenVersionProblem("20261126340101", names), null);
  for (const version of ["20261126340100", "20200101000000"]) {
    assert.equal(
      givenVersionProblem(version, names),
      `--version ${version} must come after the newest migration's, 20261126340100: a project applies ` +
        "migrations in order of version, each version once",
    );
  }
});
