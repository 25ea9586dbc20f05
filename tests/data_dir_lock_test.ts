/** PGlite serves one process at a time: the data directory's lock says who holds it (two processes: local_loop_test.ts). */
import assert from "node:assert/strict";
import { DataDirInUseError, lockDataDir } from "../local/data_dir_lock.ts";

Deno.test("lockDataDir() refuses a second holder, naming the first, until the first releases it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await lockDataDir(`${dir}/db`, "the dev task");
    await assert.rejects(
      lockDataDir(`${dir}/db`, "the orders task"),
      (error: unknown) =>
        error instanceof DataDirInUseError && error.holder === `the dev task (pid ${Deno.pid})` &&
        error.message ===
          `${dir}/db/ is open in the dev task (pid ${Deno.pid}): PGlite serves one process at a time`,
    );
    first.release();
    (await lockDataDir(`${dir}/db`, "the orders task")).release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
