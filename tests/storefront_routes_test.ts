/** The local stack's pages (the example checkout at /storefront/, the tracking page at /track) over HTTP. */
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
      for (const path of ["/storefront/", "/storefront/storefront.js", "/storefront/config.js", "/track"]) {
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
