/**
 * One `deno test` run and the databases it makes on the shared PostgreSQL. Every database a test makes is
 * tagged with the run (a comment on the database: `create_order test run <id>`), and the first file that
 * makes one starts the run's reaper (run_reaper.ts), a detached process that drops every database of the
 * run once the test process has ended, passed or failed. Another run's databases carry another tag: a
 * concurrent run never drops them.
 *
 * Deno runs each test file in its own isolate of one process: the run's id lives in the process's
 * environment (CREATE_ORDER_TEST_RUN, with the process id, so that a `deno test` a test starts is a run of
 * its own), where every file finds it.
 */

const RUN_ENV = "CREATE_ORDER_TEST_RUN";

/** The comment that marks a database as run `runId`'s. */
export const runTag = (runId: string) => `create_order test run ${runId}`;

/** This process's run id, made by the first file that asks. */
export function testRunId(): string {
  return _run().id;
}

function _run(): { id: string; reaper: boolean } {
  const [pid, id, reaper] = (Deno.env.get(RUN_ENV) ?? "").split(" ");
  if (Number(pid) === Deno.pid && id) return { id, reaper: reaper === "1" };
  const run = { id: `${Date.now()}_${crypto.randomUUID().slice(0, 8)}`, reaper: false };
  Deno.env.set(RUN_ENV, `${Deno.pid} ${run.id} 0`);
  return run;
}

/**
 * Starts this run's reaper unless a file of the run already did. Without permission to run processes
 * (`deno test` without --allow-run) it says so once; the run's databases are then left to the sweep of
 * stale ones (tests/support/databases.ts).
 */
export function ensureRunReaper(serverUrl: string): void {
  const run = _run();
  if (run.reaper) return;
  Deno.env.set(RUN_ENV, `${Deno.pid} ${run.id} 1`);
  try {
    const reaper = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-net",
        "--allow-env",
        "--allow-read",
        "--allow-run=kill",
        new URL("./run_reaper.ts", import.meta.url).pathname,
        String(Deno.pid),
        run.id,
        serverUrl,
      ],
      cwd: new URL("../..", import.meta.url).pathname,
      stdin: "null",
      stdout: "null",
      stderr: "null",
      // its own session: a Ctrl-C to the test run's process group must not stop it too
      detached: true,
    }).spawn();
    reaper.unref();
  } catch (error) {
    console.warn(
      `notice: this run's test databases are not dropped when it ends (${(error as Error).message}); ` +
        "a later run drops them once they are 20 minutes old",
    );
  }
}
