/**
 * The client package's build (`client/dist/`): committed, current, the same API as the TypeScript it comes
 * from, and what `client/package.json` points at.
 */
import assert from "node:assert/strict";
import { buildClient, CLIENT_BUNDLE, CLIENT_DIST, clientDeclarations } from "../local/build_client.ts";
import * as client from "../client/mod.ts";

async function _committed(dir: URL, prefix = ""): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      for (
        const [path, text] of await _committed(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`)
      ) {
        files.set(path, text);
      }
    } else {
      files.set(prefix + entry.name, await Deno.readTextFile(new URL(entry.name, dir)));
    }
  }
  return files;
}

Deno.test("client/dist/ is what `deno task client:build` writes: the bundle and its declarations (run it after a change)", async () => {
  const built = await buildClient();
  const committed = await _committed(CLIENT_DIST);
  assert.deepEqual([...committed.keys()].sort(), [...built.keys()].sort());
  for (const [path, text] of built) assert.ok(committed.get(path) === text, `client/dist/${path} is stale`);
});

Deno.test("client/dist/create_order_client.js exports what client/mod.ts exports", async () => {
  const built = await import(CLIENT_BUNDLE.href);
  assert.deepEqual(Object.keys(built).sort(), Object.keys(client).sort());
  assert.deepEqual(built.ERROR_CODES, client.ERROR_CODES);
});

Deno.test("clientDeclarations() write relative imports as .js, which Node's module resolution finds", () => {
  const declarations = clientDeclarations();
  for (const [path, text] of declarations) assert.doesNotMatch(text, /from "\.[^"]*\.ts"/, path);
  // one per client/*.ts: the fee rules the bundle takes from the functions' money.ts are not the client's API
  const sources = [...Deno.readDirSync(new URL("../client/", import.meta.url))]
    .filter((entry) => entry.isFile && entry.name.endsWith(".ts"))
    .map((entry) => `types/${entry.name.replace(/\.ts$/, ".d.ts")}`);
  assert.deepEqual([...declarations.keys()].sort(), sources.sort());
  for (const text of declarations.values()) assert.doesNotMatch(text, /supabase\/functions/);
  const mod = declarations.get("types/mod.d.ts")!;
  assert.match(mod, /export \* from "\.\/order_types\.js";/);
});

Deno.test("client/package.json is an ES module package whose exports name the committed bundle and types", async () => {
  const manifest = JSON.parse(await Deno.readTextFile(new URL("../client/package.json", import.meta.url)));
  assert.equal(manifest.type, "module");
  assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(manifest.dependencies, undefined, "the client needs nothing at run time");
  assert.ok(manifest.peerDependencies["@supabase/supabase-js"]);
  const main = manifest.exports["."];
  assert.deepEqual(Object.keys(main), ["types", "default"], "types first, as TypeScript reads conditions");
  for (const file of [main.types, main.default, manifest.types]) {
    await Deno.stat(new URL(file, new URL("../client/", import.meta.url)));
  }
  assert.equal(new URL(main.default, new URL("../client/", import.meta.url)).href, CLIENT_BUNDLE.href);
});
