/**
 * The local loop with LEGACY_API_KEYS=disabled and the newer keys, as a project that has turned its legacy
 * keys off: the stack's own examples must work as printed. The banner says the legacy keys are refused and
 * its curl carries the publishable key; the storefront and the order page get the publishable key; and
 * `deno task outbox` either drains with the secret key from its environment or says in one sentence which
 * key the stack refused and what to set.
 */
import assert from "node:assert/strict";
import { DEMO_KEYS } from "../local/stack.ts";
import { runTask, spawnTask, waitForLine } from "./support/task_process.ts";

const PUBLISHABLE = "sb_publishable_local_loop_test";
const SECRET = "sb_secret_local_loop_test";

function _freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const PLAIN_ENV = {
  DATABASE_URL: "",
  SUPABASE_ANON_KEY: "",
  SUPABASE_SERVICE_ROLE_KEY: "",
  SUPABASE_PUBLISHABLE_KEYS: "",
  SUPABASE_SECRET_KEYS: "",
  RESEND_API_KEY: "",
  ORDER_TRACKING_URL: "",
  LEGACY_API_KEYS: "",
  RAZORPAY_API_URL: "",
};

Deno.test({
  name:
    "the local loop with LEGACY_API_KEYS=disabled: the banner's curl, the storefront and the order page use the publishable key; outbox names the key the stack refused",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const cwd = await Deno.makeTempDir();
    const port = String(_freePort() - 1); // the fake Razorpay takes the next one
    const base = `http://127.0.0.1:${port}`;
    const dev = await spawnTask("dev", {
      cwd,
      env: {
        ...PLAIN_ENV,
        PORT: port,
        LEGACY_API_KEYS: "disabled",
        SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
        SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET }),
      },
    });
    const printed: string[] = [];
    try {
      waitForLine(dev.stderr, /(?!)/, []).catch(() => {}); // drained, never matched
      await waitForLine(dev.stdout, /-d '/, printed);
      const banner = printed.join("\n");

      await t.step("the banner says the legacy keys are refused, and its curl works as printed", async () => {
        assert.ok(!banner.includes(DEMO_KEYS.anon) && !banner.includes(DEMO_KEYS.serviceRole), banner);
        assert.match(
          banner,
          /^ {2}anon key: {10}disabled \(LEGACY_API_KEYS=disabled\): refused by the stack$/m,
        );
        const authorization = /-H 'Authorization: (Bearer [^']+)'/.exec(banner)?.[1];
        const body = /-d '(.*)'$/m.exec(banner)?.[1];
        assert.equal(authorization, `Bearer ${PUBLISHABLE}`);
        const response = await fetch(`${base}/functions/v1/create-order`, {
          method: "POST",
          headers: { Authorization: authorization!, "Content-Type": "application/json" },
          body,
        });
        assert.equal(response.status, 200, await response.clone().text());
        await response.body?.cancel();
      });

      await t.step("the storefront's config.js and the order page carry the publishable key", async () => {
        const config = await (await fetch(`${base}/storefront/config.js`)).text();
        assert.ok(config.includes(JSON.stringify(PUBLISHABLE)) && !config.includes(DEMO_KEYS.anon), config);
        const page = await (await fetch(`${base}/track`)).text();
        assert.ok(page.includes(PUBLISHABLE) && !page.includes(DEMO_KEYS.anon));
      });

      await t.step(
        "deno task outbox without the secret key names the key the stack refused and what to set, exit 2",
        async () => {
          const refused = await runTask("outbox", { cwd, env: { ...PLAIN_ENV, PORT: port } });
          assert.deepEqual([refused.code, refused.stdout], [2, ""]);
          assert.equal(
            refused.stderr.trim(),
            `outbox: ${base} refused the local stack's demo service-role key (this task's SUPABASE_SECRET_KEYS ` +
              `and SUPABASE_SERVICE_ROLE_KEY are unset) (401 "Legacy API keys are disabled"): its legacy keys are ` +
              "disabled (LEGACY_API_KEYS=disabled), so set SUPABASE_SECRET_KEYS for this task as deno task dev " +
              `has it, e.g. SUPABASE_SECRET_KEYS='{"default":"sb_secret_…"}'`,
          );
        },
      );

      await t.step("deno task outbox with SUPABASE_SECRET_KEYS drains the stack", async () => {
        const drained = await runTask("outbox", {
          cwd,
          env: { ...PLAIN_ENV, PORT: port, SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET }) },
        });
        assert.equal(drained.code, 0, drained.stderr);
        assert.match(
          drained.stdout,
          /^outbox: claimed \d+, sent \d+, failed 0, dead 0, ignored 0, superseded 0, released 0$/m,
        );
      });
    } finally {
      dev.kill("SIGINT");
      await dev.status;
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
