/**
 * `deno task dev` and `deno task outbox` refuse a configuration they cannot run with in one sentence that
 * names the variable, exit 2, before opening a database: no "Uncaught (in promise)", no stack trace.
 */
import assert from "node:assert/strict";
import { runTask } from "./support/task_process.ts";

/** A fresh shell's environment as far as the tasks read it. */
const PLAIN_ENV = {
  DATABASE_URL: "",
  SUPABASE_ANON_KEY: "",
  SUPABASE_SERVICE_ROLE_KEY: "",
  SUPABASE_PUBLISHABLE_KEYS: "",
  SUPABASE_SECRET_KEYS: "",
  RESEND_API_KEY: "",
  LEGACY_API_KEYS: "",
  RAZORPAY_API_URL: "",
  PORT: "",
};

async function refusal(task: string, env: Record<string, string>): Promise<string> {
  const cwd = await Deno.makeTempDir();
  try {
    const run = await runTask(task, { cwd, env: { ...PLAIN_ENV, ...env } });
    assert.deepEqual([run.code, run.stdout], [2, ""], run.stderr);
    // nothing was opened: no database was created in the directory
    assert.deepEqual([...Deno.readDirSync(cwd)], []);
    return run.stderr.trim();
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

const NEWER_KEYS = {
  SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_dev"}',
  SUPABASE_SECRET_KEYS: '{"default":"sb_secret_dev"}',
};

Deno.test("deno task dev refuses SUPABASE_SECRET_KEYS or SUPABASE_PUBLISHABLE_KEYS that is no JSON object of keys with the variable's sentence, exit 2", async () => {
  for (const value of ["not json", "sb_secret_abc123", '["sb_secret_abc123"]']) {
    assert.equal(
      await refusal("dev", { SUPABASE_SECRET_KEYS: value }),
      value.startsWith("[")
        ? "dev: SUPABASE_SECRET_KEYS must be a JSON object whose values are non-empty strings"
        : 'dev: SUPABASE_SECRET_KEYS must be a JSON object of key names to keys, e.g. {"default":"sb_secret_..."}',
      value,
    );
  }
  assert.equal(
    await refusal("dev", { SUPABASE_PUBLISHABLE_KEYS: "sb_publishable_abc" }),
    'dev: SUPABASE_PUBLISHABLE_KEYS must be a JSON object of key names to keys, e.g. {"default":"sb_publishable_..."}',
  );
});

Deno.test("deno task dev refuses LEGACY_API_KEYS=disabled without the newer keys, and a LEGACY_API_KEYS it does not know, with the functions' own sentences", async () => {
  assert.equal(
    await refusal("dev", { LEGACY_API_KEYS: "disabled" }),
    "dev: SUPABASE_PUBLISHABLE_KEYS is not set: with LEGACY_API_KEYS=disabled the stack refuses the anon key, " +
      'so the storefront and the curl example need a publishable key, e.g. {"default":"sb_publishable_…"}',
  );
  assert.match(
    await refusal("dev", {
      LEGACY_API_KEYS: "disabled",
      SUPABASE_PUBLISHABLE_KEYS: NEWER_KEYS.SUPABASE_PUBLISHABLE_KEYS,
    }),
    /^dev: SUPABASE_SECRET_KEYS has no default entry: with LEGACY_API_KEYS=disabled /,
  );
  assert.equal(
    await refusal("dev", { LEGACY_API_KEYS: "Disabled" }),
    'dev: LEGACY_API_KEYS must be "disabled" (or "enabled", or unset): got "Disabled"',
  );
});

Deno.test("deno task dev refuses a PORT that is no port number, or one in use, naming PORT", async () => {
  for (const port of ["abc", "99999", "80.5", "-1"]) {
    assert.equal(
      await refusal("dev", { PORT: port }),
      `dev: PORT must be a port number from 0 to 65535: got ${JSON.stringify(port)}`,
    );
  }
  assert.equal(
    await refusal("dev", { PORT: "65535" }),
    "dev: PORT must be at most 65534: the fake Razorpay takes the next port (or set RAZORPAY_API_URL): got 65535",
  );
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  assert.equal(
    await refusal("dev", { PORT: String(port) }),
    `dev: port ${port} of 127.0.0.1, the stack's (PORT), is in use (another deno task dev?): stop what ` +
      "listens there, or set PORT to a free port",
  );
  assert.equal(
    await refusal("dev", { PORT: String(port - 1) }),
    `dev: port ${port} of 127.0.0.1, the fake Razorpay's (PORT + 1), is in use (another deno task dev?): ` +
      "stop what listens there, or set PORT to a free port",
  );
});

Deno.test("deno task outbox refuses a PORT that is no port number as PORT, never as SUPABASE_URL", async () => {
  assert.equal(
    await refusal("outbox", { PORT: "abc" }),
    'outbox: PORT must be a port number from 1 to 65535: got "abc"',
  );
});
