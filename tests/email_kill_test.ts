/**
 * The outbox's reason to exist: an order's e-mails survive the death of the process that should have
 * sent them. A real `deno task dev` process over PostgreSQL is killed while its e-mail sends hang; after
 * a restart, `deno task outbox` delivers both e-mails exactly once.
 */
import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPostgres, sharedPostgresUrl } from "./support/databases.ts";
import { startFakeResend } from "../local/fake_resend.ts";
import { orderBody } from "./support/order_request.ts";

const ROOT = new URL("..", import.meta.url);
const db = await sharedPostgres();
const databaseUrl = await sharedPostgresUrl();

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function startDevServer(port: number, resendUrl: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    // deno run, not deno task: a SIGKILL must reach the server itself, not a task runner above it
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "local/dev_server.ts",
    ],
    cwd: ROOT,
    env: {
      DATABASE_URL: databaseUrl!,
      PORT: String(port),
      RESEND_API_KEY: "re_test_key",
      RESEND_BASE_URL: resendUrl,
      RATE_LIMIT_PER_IP: "0",
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
}

async function waitUntilServing(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/functions/v1/create-order`, {
        method: "OPTIONS",
      });
      await response.body?.cancel();
      if (response.status === 204) return;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the dev server did not start on port ${port}`);
}

Deno.test({
  name:
    "[postgres] deno task outbox delivers each e-mail of an order exactly once after its sender was killed",
  ignore: db === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const store = await createTestStore(db!);
    // A provider that accepts connections and never answers: the sends are in flight when we kill.
    const hanging = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    let seen = 0;
    (async () => {
      for await (const conn of hanging) {
        held.push(conn);
        const buffer = new Uint8Array(65_536);
        conn.read(buffer).then((n) =>
          n && new TextDecoder().decode(buffer).includes("POST /emails") && seen++
        )
          .catch(() => {});
      }
    })().catch(() => {});
    const port = freePort();
    const first = startDevServer(port, `http://127.0.0.1:${(hanging.addr as Deno.NetAddr).port}`);
    let orderId: string;
    try {
      await waitUntilServing(port);
      const response = await fetch(`http://127.0.0.1:${port}/functions/v1/create-order`, {
        method: "POST",
        headers: {
          Authorization: "Bearer local-anon-key-for-development-only",
          "Content-Type": "application/json",
        },
        body: JSON.stringify(orderBody(store)),
      });
      assert.equal(response.status, 200);
      orderId = (await response.json()).orderId;
      for (let i = 0; i < 100 && seen < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(seen, 2, "both sends reached the provider before the kill");
    } finally {
      try {
        first.kill("SIGKILL");
      } catch { /* already gone */ }
      await first.status;
      hanging.close();
      for (const conn of held) conn.close();
    }
    const stuck = await db!.query<{ status: string }>(
      "select status from public.email_outbox where order_id = $1 order by kind",
      [orderId],
    );
    assert.deepEqual(stuck.map((row) => row.status), ["sending", "sending"]);

    const resend = startFakeResend();
    const second = startDevServer(port, resend.url);
    try {
      await waitUntilServing(port);
      for (let run = 0; run < 2; run++) {
        const output = await new Deno.Command(Deno.execPath(), {
          args: ["task", "--quiet", "outbox", "--min-age=0", "--stale-after=0"],
          cwd: ROOT,
          env: {
            SUPABASE_URL: `http://127.0.0.1:${port}`,
            SUPABASE_SERVICE_ROLE_KEY: "local-service-role-key-for-development-only",
            RESEND_API_KEY: "re_test_key",
            RESEND_BASE_URL: resend.url,
            NO_COLOR: "1",
          },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      }
      const delivered = resend.delivered.filter((email) =>
        [email.to, email.replyTo].flat().includes(store.ownerEmail)
      );
      const ours = resend.requests.filter((request) =>
        request.idempotencyKey?.startsWith(`order/${orderId}/`)
      );
      assert.deepEqual(ours.map((request) => request.idempotencyKey).sort(), [
        `order/${orderId}/buyer`,
        `order/${orderId}/seller`,
      ]);
      assert.deepEqual(
        delivered.map((email) => email.to).sort(),
        ["asha@example.com", store.ownerEmail].sort(),
      );
      const rows = await db!.query<{ status: string }>(
        "select status from public.email_outbox where order_id = $1 order by kind",
        [orderId],
      );
      assert.deepEqual(rows.map((row) => row.status), ["sent", "sent"]);
    } finally {
      second.kill("SIGKILL");
      await second.status;
      await resend.close();
    }
  },
});
