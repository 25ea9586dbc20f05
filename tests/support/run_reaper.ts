/**
 * `deno run --allow-net --allow-env --allow-read tests/support/run_reaper.ts <pid> <run id> <server URL>`:
 * waits for the test process `<pid>` to end, however it ends (its tests passed or failed, Ctrl-C, a crash),
 * then drops every database on the server that this run tagged as its own (see test_run.ts). A test file
 * cannot drop its database itself: Deno ends a file's isolate without waiting for asynchronous work, and
 * the file's connections are open until then. Started once per run, detached, by the first file that makes
 * a database; it ends by itself within a day even if the process id lives on.
 */
import postgres from "postgres";
import { runTag } from "./test_run.ts";

const POLL_MS = 500;
const GIVE_UP_MS = 24 * 60 * 60 * 1000;

/** Whether process `pid` still runs: /proc where there is one (Linux), `kill -0` elsewhere. */
async function _alive(pid: number): Promise<boolean> {
  if (await _exists("/proc/self")) return await _exists(`/proc/${pid}`);
  return (await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output()).success;
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Drops the run's databases; returns their names. */
export async function dropRunDatabases(serverUrl: string, runId: string): Promise<string[]> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin.unsafe<{ name: string }[]>(
      "select datname::text as name from pg_database d where shobj_description(d.oid, 'pg_database') = $1",
      [runTag(runId)],
    );
    for (const { name } of rows) {
      await admin.unsafe(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
    }
    return rows.map((row) => row.name);
  } finally {
    await admin.end();
  }
}

if (import.meta.main) {
  const [pid, runId, serverUrl] = Deno.args;
  const started = Date.now();
  while (await _alive(Number(pid)) && Date.now() - started < GIVE_UP_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  await dropRunDatabases(serverUrl, runId);
}
