/**
 * The suite's PostgreSQL databases do not outlive their run: every database a run made is dropped once the
 * run has ended, whether its tests failed or the run was interrupted (Ctrl-C) or killed mid-test, and a run
 * never drops a database of another run that is still going (tests/support/test_run.ts). Proven on child
 * `deno test` runs of a fixture file that makes databases and then ends badly.
 */
import assert from "node:assert/strict";
import { openPostgres } from "../local/open_database.ts";
import { createTestDatabase, POSTGRES_SERVER_URL, postgresReachable } from "./support/databases.ts";

const ROOT = new URL("..", import.meta.url);
const FIXTURE = "tests/fixtures/databases_left_fixture.ts";
/** The reaper looks every 500 ms; a loaded machine may be slower to start it or to drop. */
const WAIT_MS = 30_000;

/** Which of `names` exist on the server. */
async function existing(names: string[]): Promise<string[]> {
  const admin = openPostgres(POSTGRES_SERVER_URL, 1);
  try {
    const rows = await admin.query<{ name: string }>(
      "select datname::text as name from pg_database where datname = any($1::text[]) order by 1",
      [names],
    );
    return rows.map((row) => row.name);
  } finally {
    await admin.close();
  }
}

/** Polls `check` every 250 ms until it is true or `ms` have passed; returns its last answer. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 250) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return await check();
}

/**
 * Runs the fixture as a run of its own: its test fails, or once it has made its databases its process
 * group gets SIGINT (as Ctrl-C sends it) or the process SIGKILL. Returns the names of its databases.
 */
async function runFixture(ending: "fail" | "SIGINT" | "SIGKILL"): Promise<string[]> {
  const namesFile = await Deno.makeTempFile({ prefix: "databases_left_" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["test", "--allow-all", FIXTURE],
      cwd: ROOT,
      env: {
        FIXTURE_DATABASES_FILE: namesFile,
        FIXTURE_ENDING: ending === "fail" ? "fail" : "wait",
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
      // its own process group, as a run started from a terminal has
      detached: true,
    }).spawn();
    const names = async () => (await Deno.readTextFile(namesFile)).trim();
    if (ending !== "fail") {
      assert.ok(
        await eventually(async () => (await names()) !== "", 60_000),
        "the fixture made its databases",
      );
      Deno.kill(ending === "SIGINT" ? -child.pid : child.pid, ending);
    }
    const { code, stdout, stderr } = await child.output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    if (ending === "fail") assert.equal(code, 1, output);
    else assert.notEqual(code, 0, output);
    const made: string[] = JSON.parse(await names());
    assert.equal(made.length, 2, output);
    return made;
  } finally {
    await Deno.remove(namesFile);
  }
}

Deno.test({
  name:
    "[postgres] a test run drops every database it made once it ends (a test failed, Ctrl-C, SIGKILL), and leaves another run's alone",
  ignore: !(await postgresReachable()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // this run's own database, made before the child runs and used by no session while they run
    const mine = await createTestDatabase();
    try {
      for (const ending of ["fail", "SIGINT", "SIGKILL"] as const) {
        await t.step(
          ending === "fail" ? "a run whose test fails" : `a run stopped by ${ending}`,
          async () => {
            const made = await runFixture(ending);
            assert.ok(
              await eventually(async () => (await existing(made)).length === 0, WAIT_MS),
              `left behind: ${await existing(made)}`,
            );
            assert.deepEqual(await existing([mine.name]), [mine.name], "this run's database is left alone");
          },
        );
      }
    } finally {
      const admin = openPostgres(POSTGRES_SERVER_URL, 1);
      await admin.exec(`drop database if exists ${mine.name} with (force)`);
      await admin.close();
    }
  },
});
