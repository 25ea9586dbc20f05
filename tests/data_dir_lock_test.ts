/**
 * PGlite serves one process at a time: the data directory's lock says who holds it. Proved in one process
 * and with two real ones, `deno task dev` and `deno task orders` over one .local/db/.
 */
import assert from "node:assert/strict";
import { DataDirInUseError, lockDataDir } from "../local/data_dir_lock.ts";
import { SEED_EXAMPLE_ORDER } from "../local/example_order.ts";
import { DEMO_KEYS } from "../local/stack.ts";
import { runTask, spawnTask, waitForLine } from "./support/task_process.ts";

Deno.test("lockDataDir() refuses a second holder, naming the first, until the first releases it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await lockDataDir(`${dir}/db`, "deno task dev");
    await assert.rejects(
      lockDataDir(`${dir}/db`, "deno task orders"),
      (error: unknown) =>
        error instanceof DataDirInUseError && error.holder === `deno task dev (pid ${Deno.pid})` &&
        error.message ===
          `${dir}/db/ is open in deno task dev (pid ${Deno.pid}): PGlite serves one process at a time`,
    );
    first.release();
    (await lockDataDir(`${dir}/db`, "deno task orders")).release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function _freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The environment of a fresh shell: no DATABASE_URL, no keys, no Resend. */
function _plainEnv(): Record<string, string> {
  return { DATABASE_URL: "", RESEND_API_KEY: "", SUPABASE_ANON_KEY: "", SUPABASE_SERVICE_ROLE_KEY: "" };
}

Deno.test({
  name:
    "deno task orders while deno task dev holds .local/db/ says who holds it and what to do, exit 2; after Ctrl-C it lists the order",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cwd = await Deno.makeTempDir();
    const port = _freePort();
    const dev = await spawnTask("dev", { cwd, env: { ..._plainEnv(), PORT: String(port) } });
    const printed: string[] = [];
    const stderr: string[] = [];
    try {
      waitForLine(dev.stderr, /(?!)/, stderr).catch(() => {}); // drained, never matched
      await waitForLine(dev.stdout, /^Try it:$/, printed);
      const response = await fetch(`http://127.0.0.1:${port}/functions/v1/create-order`, {
        method: "POST",
        headers: { Authorization: `Bearer ${DEMO_KEYS.anon}`, "Content-Type": "application/json" },
        body: JSON.stringify(SEED_EXAMPLE_ORDER),
      });
      assert.equal(response.status, 200);
      const { orderNumber } = await response.json();

      const refused = await runTask("orders", { cwd, env: _plainEnv() });
      assert.equal(refused.code, 2);
      assert.equal(
        refused.stderr.trim(),
        `orders: .local/db/ is open in deno task dev (pid ${dev.pid}): PGlite serves one process at a time. ` +
          "Stop it (Ctrl-C in its terminal) and run this again; to read orders while the stack runs, run both " +
          "over PostgreSQL (DATABASE_URL=… for each).",
      );
      assert.equal(refused.stdout, "");

      dev.kill("SIGINT");
      assert.equal((await dev.status).code, 0);
      // the lock file stays behind: it locks nothing once its holder has exited
      await Deno.stat(`${cwd}/.local/db.lock`);
      const listed = await runTask("orders", { cwd, env: _plainEnv() });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`${orderNumber}.*payment_pending`));
    } finally {
      try {
        dev.kill("SIGKILL");
      } catch { /* it has exited */ }
      await dev.status;
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
