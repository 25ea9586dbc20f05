/**
 * docs/integrate.md's payment curls run as a reader runs them, in order, in one shell against the local stack
 * (its port in PORT, the fake Razorpay on the next one, as `deno task dev` serves them): verify-payment on
 * an order of its own, the signed webhook on another with a payment id and event id new on every run, then
 * the shipping moves of that order. Each answers what docs/integrate.md shows beside it, and a second run does
 * too. They once shared the first curl's order and a fixed `pay_demo_1`, and answered `duplicate_payment`,
 * `already_recorded` or `already_paid` where docs/integrate.md showed `paid`.
 */
import assert from "node:assert/strict";
import { withDevRateLimits } from "../local/dev_rate_limits.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { type CodeBlock, parseMarkdown } from "./support/markdown.ts";

const INTEGRATE = await Deno.readTextFile(new URL("../docs/integrate.md", import.meta.url));
const { blocks } = parseMarkdown(INTEGRATE);

/** The shell block whose text has `marker`, and the JSON of the answer block right after it (if any). */
function _example(
  marker: (text: string) => boolean,
): { script: string; shown: Record<string, unknown> | null } {
  const index = blocks.findIndex((block: CodeBlock) => block.lang === "sh" && marker(block.lines.join("\n")));
  assert.ok(index >= 0, "docs/integrate.md's example is gone");
  const next = blocks[index + 1];
  const shown = next?.lang === "http"
    ? JSON.parse(next.lines.filter((line) => line.startsWith("{")).at(-1)!)
    : null;
  return { script: blocks[index].lines.join("\n"), shown };
}

const VERIFY = _example((text) => text.includes("/v1/checkout/pay"));
const WEBHOOK = _example((text) => text.includes("x-razorpay-event-id"));
const SHIP = _example((text) =>
  text.includes('"orderId":"\'$ORDER_ID\'","status":"processing"') && text.includes('"status":"shipped"')
);

/** `answer` as docs/integrate.md shows it: ids shown cut short (`…`) and order numbers by their shape. */
function _asShown(answer: Record<string, unknown>, shown: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(answer).map(([key, value]) => {
      const expected = shown[key];
      if (typeof expected === "string" && typeof value === "string") {
        if (expected.endsWith("…") && /^[0-9a-f-]{36}$/.test(value)) return [key, expected];
        if (/^ORD-\d{4}-\d{6,}$/.test(expected) && /^ORD-\d{4}-\d{6,}$/.test(value)) return [key, expected];
      }
      return [key, value];
    }),
  );
}

/** Two free ports in a row: the stack's and the fake Razorpay's. */
function _twoPorts(): number {
  for (let tries = 0; tries < 50; tries++) {
    const port = 40000 + Math.floor(Math.random() * 9000);
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      Deno.listen({ hostname: "127.0.0.1", port: port + 1 }).close();
      return port;
    } catch {
      continue;
    }
  }
  throw new Error("no two free ports in a row");
}

const MARK = "@@readme-example-ends@@";

Deno.test({
  name:
    "[pglite] docs/integrate.md's verify-payment, webhook and shipping curls, run in order twice against the local stack, answer what docs/integrate.md shows",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const port = _twoPorts();
    const stack = await startTestStack({
      db: await sharedPglite(),
      port,
      hostname: "127.0.0.1",
      env: withDevRateLimits({}),
      fakeRazorpay: { port: port + 1 },
    });
    try {
      for (const run of [1, 2]) {
        await t.step(`run ${run}`, async () => {
          const script = [VERIFY.script, WEBHOOK.script, SHIP.script].join(`\necho\necho ${MARK}\n`);
          const { code, stdout, stderr } = await new Deno.Command("bash", {
            args: ["-c", `set -eu\n${script}\necho\necho ${MARK}`],
            env: { PORT: String(port) },
            stdout: "piped",
            stderr: "piped",
          }).output();
          const err = new TextDecoder().decode(stderr);
          assert.equal(code, 0, err);
          const outputs = new TextDecoder().decode(stdout).split(MARK);
          const lastJson = (output: string) =>
            JSON.parse(output.trim().split("\n").filter((line) => line.startsWith("{")).at(-1)!);
          const verified = lastJson(outputs[0]);
          assert.deepEqual(_asShown(verified, VERIFY.shown!), VERIFY.shown);
          const confirmed = lastJson(outputs[1]);
          assert.deepEqual(_asShown(confirmed, WEBHOOK.shown!), WEBHOOK.shown);
          const shipped = lastJson(outputs[2]);
          assert.deepEqual([shipped.orderId, shipped.status], [confirmed.orderId, "shipped"]);
        });
      }
    } finally {
      await stack.close();
    }
  },
});
