/**
 * The local loop as the README and docs/develop.md tell it, with real processes in a fresh directory and a fresh shell's
 * environment: `deno task dev` prints its rate limits and takes the README's curl again and again;
 * `deno task outbox` reaches it with no URL or key; `deno task orders` says what to do while dev holds
 * .local/db/, and lists the orders once dev has stopped.
 */
import assert from "node:assert/strict";
import { describeRateLimits, withDevRateLimits } from "../local/dev_rate_limits.ts";
import { SEED_EXAMPLE_ORDER } from "../local/example_order.ts";
import { DEMO_KEYS } from "../local/stack.ts";
import { runTask, spawnTask, waitForLine } from "./support/task_process.ts";

function _freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A fresh shell's environment as far as the tasks read it: no database, keys, Resend or limits. */
const PLAIN_ENV = {
  DATABASE_URL: "",
  SUPABASE_ANON_KEY: "",
  SUPABASE_SERVICE_ROLE_KEY: "",
  SUPABASE_SECRET_KEYS: "",
  RESEND_API_KEY: "",
  ORDER_TRACKING_URL: "",
  LEGACY_API_KEYS: "",
  RATE_LIMIT_PER_EMAIL: "",
  RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "",
  RATE_LIMIT_PER_IP: "",
  RATE_LIMIT_PER_IP_WINDOW_SECONDS: "",
};

Deno.test({
  name: "the local loop: deno task dev, its curl twelve times, deno task outbox and deno task orders",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const cwd = await Deno.makeTempDir();
    const port = String(_freePort());
    const env = { ...PLAIN_ENV, PORT: port };
    const dev = await spawnTask("dev", { cwd, env });
    const printed: string[] = [];
    const errors: string[] = [];
    const orderNumbers: string[] = [];
    try {
      waitForLine(dev.stderr, /(?!)/, errors).catch(() => {}); // drained, never matched
      await waitForLine(dev.stdout, /^Try it:$/, printed);

      await t.step(
        "deno task dev prints its rate limits, the storefront's and the order page's addresses on PORT, and its curl runs twelve times in a row",
        async () => {
          assert.ok(
            printed.includes(`  limits:    ${describeRateLimits(withDevRateLimits({}))}`),
            printed.join("\n"),
          );
          const base = `http://127.0.0.1:${port}`;
          assert.ok(
            printed.some((line) => line.startsWith(`  storefront: ${base}/storefront/ `)),
            printed.join("\n"),
          );
          assert.ok(
            printed.includes(
              `  order page: ${base}/track?order=<orderId>&token=<token> (buyers' e-mails link here)`,
            ),
            printed.join("\n"),
          );
          for (const page of ["/storefront/", "/track"]) {
            const response = await fetch(`${base}${page}`);
            await response.body?.cancel();
            assert.equal(response.status, 200, page);
          }
          for (let run = 1; run <= 12; run++) {
            const response = await fetch(`http://127.0.0.1:${port}/functions/v1/create-order`, {
              method: "POST",
              headers: { Authorization: `Bearer ${DEMO_KEYS.anon}`, "Content-Type": "application/json" },
              body: JSON.stringify(SEED_EXAMPLE_ORDER),
            });
            const body = await response.json();
            assert.equal(response.status, 200, `run ${run}: ${JSON.stringify(body)}`);
            orderNumbers.push(body.orderNumber);
          }
        },
      );

      await t.step("deno task outbox with no URL or key drains the running stack", async () => {
        const drained = await runTask("outbox", { cwd, env });
        assert.equal(drained.code, 0, drained.stderr);
        assert.match(
          drained.stdout,
          /^outbox: claimed \d+, sent \d+, failed 0, dead 0, ignored 0, superseded 0, released 0$/m,
        );
      });

      await t.step(
        "deno task orders while dev holds .local/db/ says who holds it and what to do, exit 2",
        async () => {
          const refused = await runTask("orders", { cwd, env });
          assert.equal(refused.code, 2);
          assert.equal(
            refused.stderr.trim(),
            `orders: .local/db/ is open in the dev task (pid ${dev.pid}): PGlite serves one process at a time. ` +
              "Stop it (Ctrl-C in its terminal) and run this again; to read orders while the stack runs, run both " +
              "over PostgreSQL (DATABASE_URL=… for each).",
          );
          assert.equal(refused.stdout, "");
        },
      );

      await t.step("after Ctrl-C, deno task orders lists the latest orders of .local/db/", async () => {
        dev.kill("SIGINT");
        assert.equal((await dev.status).code, 0);
        // the lock file stays behind: it locks nothing once its holder has exited
        await Deno.stat(`${cwd}/.local/db.lock`);
        const listed = await runTask("orders", { cwd, env, args: ["3"] });
        assert.equal(listed.code, 0, listed.stderr);
        for (const number of orderNumbers.slice(-3)) {
          assert.match(listed.stdout, new RegExp(`${number}.*payment_pending`));
        }
        assert.doesNotMatch(listed.stdout, new RegExp(orderNumbers.at(-4)!));
      });
    } finally {
      try {
        dev.kill("SIGKILL");
      } catch { /* it has exited */ }
      await dev.status;
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
