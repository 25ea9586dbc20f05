/** The browser build of the client: committed, current, and the same API as the TypeScript it comes from. */
import assert from "node:assert/strict";
import { bundleClient, CLIENT_BUNDLE } from "../client/build_client.ts";
import * as client from "../client/mod.ts";

Deno.test("client/dist/create_order_client.js is what `deno task client:build` writes (run it after a change)", async () => {
  assert.equal(await Deno.readTextFile(CLIENT_BUNDLE), await bundleClient());
});

Deno.test("client/dist/create_order_client.js exports what client/mod.ts exports", async () => {
  const built = await import(CLIENT_BUNDLE.href);
  assert.deepEqual(Object.keys(built).sort(), Object.keys(client).sort());
  assert.deepEqual(built.ERROR_CODES, client.ERROR_CODES);
});
