/** The local stack's pages (the example checkout at /storefront/, the order page at /track) over HTTP. */
import assert from "node:assert/strict";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

Deno.test({
  name: "[pglite] HEAD on the stack's pages answers as GET does, without the body",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const stack = await startTestStack({ db: await sharedPglite() });
    try {
      const paths = [
        "/storefront/",
        "/storefront/storefront.js",
        "/storefront/amount_to_pay.js",
        "/storefront/storefront.css",
        "/storefront/config.js",
        "/track",
      ];
      for (const path of paths) {
        await t.step(path, async () => {
          const get = await fetch(`${stack.url}${path}`);
          assert.ok((await get.text()).length > 0);
          const head = await fetch(`${stack.url}${path}`, { method: "HEAD" });
          assert.deepEqual(
            [head.status, head.headers.get("content-type"), await head.text()],
            [200, get.headers.get("content-type"), ""],
          );
        });
      }
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name: "[pglite] /storefront/ serves the example's own modules by plain name, and nothing else of the tree",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const stack = await startTestStack({ db: await sharedPglite() });
    try {
      const absent = [
        "/storefront/missing.js",
        "/storefront/index.html.js",
        "/storefront/%2e%2e/%2e%2e/deno.json",
        "/storefront/..%2f..%2fdeno.js",
        "/storefront/vendor/other.js",
      ];
      for (const path of absent) {
        await t.step(path, async () => {
          const res = await fetch(`${stack.url}${path}`);
          assert.equal(res.status, 404);
          await res.body?.cancel();
        });
      }
    } finally {
      await stack.close();
    }
  },
});
