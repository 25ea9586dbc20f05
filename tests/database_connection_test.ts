/**
 * The local tasks over a DATABASE_URL they cannot use (no such database, nothing listening, an unknown host,
 * an unknown user) say what is wrong and how to fix it, exit 2, instead of a driver's stack trace.
 */
import assert from "node:assert/strict";
import { connectPostgres, DatabaseUnavailableError } from "../local/database_connection.ts";
import { POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";
import { runTask } from "./support/task_process.ts";

const postgres = await postgresReachable();

function _closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close(); // nothing listens there now
  return port;
}

function _missingDatabaseUrl(): { url: string; name: string } {
  const url = new URL(POSTGRES_SERVER_URL);
  const name = `create_order_missing_${crypto.randomUUID().slice(0, 8)}`;
  url.pathname = `/${name}`;
  return { url: url.href, name };
}

async function _refusal(url: string): Promise<string> {
  const error = await connectPostgres(url, 1).then(
    async (db) => {
      await db.close();
      assert.fail(`${url} connected`);
    },
    (error) => error,
  );
  assert.ok(error instanceof DatabaseUnavailableError, String(error));
  return error.message;
}

Deno.test("connectPostgres() says that nothing answers at a closed port, and how to fix it", async () => {
  const port = _closedPort();
  assert.equal(
    await _refusal(`postgres://postgres@127.0.0.1:${port}/shop`),
    `nothing answers at 127.0.0.1:${port} (DATABASE_URL): start PostgreSQL there, or correct DATABASE_URL`,
  );
});

Deno.test("connectPostgres() says that a host is not found", async () => {
  assert.equal(
    await _refusal("postgres://postgres@no-such-host.invalid:5432/shop"),
    "the host no-such-host.invalid of DATABASE_URL is not found: correct DATABASE_URL",
  );
});

Deno.test({
  name: "[postgres] connectPostgres() says that a database does not exist, or that the login is refused",
  ignore: !postgres,
  async fn() {
    const { url, name } = _missingDatabaseUrl();
    assert.equal(await _refusal(url), `database ${name} does not exist: create it first (createdb ${name})`);
    const stranger = new URL(POSTGRES_SERVER_URL);
    stranger.username = "create_order_nobody";
    assert.equal(
      await _refusal(stranger.href),
      `PostgreSQL at ${stranger.hostname} refuses the login (role "create_order_nobody" does not exist): ` +
        "correct the user or password in DATABASE_URL",
    );
  },
});

for (const task of ["dev", "orders"]) {
  Deno.test({
    name:
      `[postgres] deno task ${task} over a database that does not exist says so and how to create it, exit 2`,
    ignore: !postgres,
    async fn() {
      const { url, name } = _missingDatabaseUrl();
      const run = await runTask(task, { cwd: Deno.cwd(), env: { DATABASE_URL: url, PORT: "0" } });
      assert.deepEqual([run.code, run.stderr.trim(), run.stdout], [
        2,
        `${task}: database ${name} does not exist: create it first (createdb ${name})`,
        "",
      ]);
    },
  });
}

for (const task of ["dev", "orders", "db:reset"]) {
  Deno.test(`deno task ${task} over a closed port says that nothing answers there, exit 2`, async () => {
    const port = _closedPort();
    const url = `postgres://postgres@127.0.0.1:${port}/shop`;
    const run = await runTask(task, { cwd: Deno.cwd(), env: { DATABASE_URL: url, PORT: "0" } });
    assert.deepEqual([run.code, run.stderr.trim(), run.stdout], [
      2,
      `${task}: nothing answers at 127.0.0.1:${port} (DATABASE_URL): start PostgreSQL there, or correct DATABASE_URL`,
      "",
    ]);
  });
}
