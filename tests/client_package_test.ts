/**
 * The client as an npm package (`client/package.json`): a fresh `npm init -y` project installs it by path
 * (`npm i ../client`) with supabase-js from the registry, type-checks an import of it with TypeScript's
 * Node resolution (`nodenext`), places an order on the local stack from Node.js 20 (the machine's) and 22
 * (`npx -y node@22`), and reads a failure over undici's own fetch (whose Response is another class: the
 * client once called a 400 a NETWORK_ERROR there). Before the package existed, Node refused the copied
 * bundle: "Named export 'createOrder' not found ... is a CommonJS module".
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const CLIENT_DIR = new URL("../client/", import.meta.url).pathname;
const VERSIONS = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url))).imports;
const _pinned = (name: string) => `${name}@${VERSIONS[name].split("@").pop()}`;

// Node 20 has no WebSocket of its own, which supabase-js's Realtime client wants even for functions: it
// gets `ws`, as docs/integrate.md says
const PLACE_ORDER = `
import { createClient } from "@supabase/supabase-js";
import { createOrder, ERROR_CODES } from "create-order-client";
const realtime = globalThis.WebSocket ? {} : { transport: (await import("ws")).default };
const supabase = createClient(process.env.SUPABASE_URL, process.env.SUPABASE_ANON_KEY, {
  auth: { persistSession: false },
  realtime,
});
const result = await createOrder(supabase, JSON.parse(process.env.ORDER));
console.log(JSON.stringify({ node: process.version, codes: ERROR_CODES.length, result }));
`;

// supabase-js over undici's own fetch, whose Response is another class than Node's global one
const PLACE_ORDER_UNDICI = `
import { createClient } from "@supabase/supabase-js";
import { fetch, Response } from "undici";
import { createOrder } from "create-order-client";
const realtime = globalThis.WebSocket ? {} : { transport: (await import("ws")).default };
const supabase = createClient(process.env.SUPABASE_URL, process.env.SUPABASE_ANON_KEY, {
  auth: { persistSession: false },
  realtime,
  global: { fetch },
});
const result = await createOrder(supabase, JSON.parse(process.env.ORDER));
console.log(JSON.stringify({ anotherClass: Response !== globalThis.Response, result }));
`;

// what an editor shows an integrator: the package's own types, strict, through its "exports"
const TYPED_USE = `
import { createClient } from "@supabase/supabase-js";
import { createOrder, type CreateOrderBody } from "create-order-client";
const body: CreateOrderBody = {
  storeId: "s", buyerEmail: "a@b.in", buyerName: "A", buyerPhone: "+91 98765 43210",
  shippingAddress: { line1: "1", city: "Pune", state: "MH", postalCode: "411001", country: "IN" },
  items: [{ productId: "p", quantity: 1, price: 349 }],
  paymentMethod: "gateway",
};
const result = await createOrder(createClient("http://127.0.0.1", "key"), body);
if (!result.ok && result.code === "PRICE_MISMATCH") {
  const current: number = result.details[0].price;
  console.log(current);
}
// @ts-expect-error: paymentMethod is a closed union, so the types are applied (not any)
const wrong: CreateOrderBody = { ...body, paymentMethod: "cash" };
console.log(wrong);
`;

const TSCONFIG = {
  compilerOptions: {
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    lib: ["es2022", "dom"],
    types: [],
    strict: true,
    noEmit: true,
    // supabase-js's own declarations want @types/node; ours are held by what typed_use.mts can use
    skipLibCheck: true,
  },
  files: ["typed_use.mts"],
};

async function _run(cmd: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const { code, stdout, stderr } = await new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", npm_config_fund: "false", npm_config_audit: "false", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout), stderr: new TextDecoder().decode(stderr) };
}

async function _ok(cmd: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const run = await _run(cmd, args, options);
  assert.equal(run.code, 0, `${cmd} ${args.join(" ")} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

Deno.test({
  name:
    "[pglite] the client installs by path into a fresh npm project, type-checks there, and places an order " +
    "from Node.js 20 and 22",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const project = await Deno.makeTempDir({ prefix: "create-order-npm-" });
    const db = await sharedPglite();
    const store = await createTestStore(db);
    const stack = await startTestStack({ db });
    try {
      await _ok("npm", ["init", "-y"], { cwd: project });
      // exactly what docs/integrate.md says: the path of client/, relative to the project
      await _ok("npm", [
        "install",
        relative(project, CLIENT_DIR),
        _pinned("@supabase/supabase-js"),
        "ws@8.23.0",
        _pinned("typescript"),
        "undici@7.30.2",
      ], { cwd: project });
      const manifest = JSON.parse(await Deno.readTextFile(`${project}/package.json`));
      assert.match(manifest.dependencies["create-order-client"], /^file:/);

      await t.step("TypeScript (nodenext) resolves the package's types through its exports", async () => {
        await Deno.writeTextFile(`${project}/typed_use.mts`, TYPED_USE);
        await Deno.writeTextFile(`${project}/tsconfig.json`, JSON.stringify(TSCONFIG));
        await _ok("npx", ["--no-install", "tsc", "-p", "."], { cwd: project });
      });

      await Deno.writeTextFile(`${project}/place_order.mjs`, PLACE_ORDER);
      await Deno.writeTextFile(`${project}/place_order_undici.mjs`, PLACE_ORDER_UNDICI);
      const place = async (node: string[], buyer: string, script = "place_order.mjs", price = 349) => {
        const order = {
          storeId: store.storeId,
          buyerEmail: `${buyer}@example.com`,
          buyerName: "Asha Rao",
          buyerPhone: "+91 98765 43210",
          shippingAddress: {
            line1: "12 MG Road",
            city: "Pune",
            state: "MH",
            postalCode: "411001",
            country: "IN",
          },
          items: [{ productId: store.products[0].id, quantity: 1, price }],
          paymentMethod: "upi_direct",
          paymentProofUrl: "https://bank.example/proof/1",
        };
        const out = await _run(node[0], [...node.slice(1), script], {
          cwd: project,
          env: { SUPABASE_URL: stack.url, SUPABASE_ANON_KEY: stack.anonKey, ORDER: JSON.stringify(order) },
        });
        return out;
      };

      await t.step("Node.js 20 (the machine's node) places an order", async () => {
        const out = await place(["node"], "node-20");
        assert.equal(out.code, 0, out.stderr);
        const { node, codes, result } = JSON.parse(out.stdout.trim().split("\n").pop()!);
        assert.match(node, /^v2\d\./);
        assert.ok(codes > 10);
        assert.equal(result.ok, true, JSON.stringify(result));
        assert.match(result.order.orderNumber, /^ORD-\d{4}-\d{6}$/);
        assert.equal(result.order.finalAmount, 349);
      });

      await t.step(
        "over undici's fetch, a 400 PRICE_MISMATCH is read as one, not as a network error",
        async () => {
          const out = await place(["node"], "undici", "place_order_undici.mjs", 300);
          assert.equal(out.code, 0, out.stderr);
          const { anotherClass, result } = JSON.parse(out.stdout.trim().split("\n").pop()!);
          assert.equal(anotherClass, true);
          assert.deepEqual([result.ok, result.status, result.code], [false, 400, "PRICE_MISMATCH"]);
          assert.equal(result.details[0].price, 349);
        },
      );

      await t.step("Node.js 22 (npx -y node@22) places an order", async () => {
        const out = await place(["npx", "-y", "node@22"], "node-22");
        if (out.code !== 0 && /node@22|ETARGET|ENOTFOUND|EAI_AGAIN/.test(out.stderr) && !out.stdout) {
          console.warn(
            `notice: npx -y node@22 could not run here, the Node 22 step is skipped: ${out.stderr}`,
          );
          return;
        }
        assert.equal(out.code, 0, out.stderr);
        const { node, result } = JSON.parse(out.stdout.trim().split("\n").pop()!);
        assert.match(node, /^v22\./);
        assert.equal(result.ok, true, JSON.stringify(result));
        assert.match(result.order.orderNumber, /^ORD-\d{4}-\d{6}$/);
      });
    } finally {
      await stack.close();
      await Deno.remove(project, { recursive: true });
    }
  },
});
