import assert from "node:assert/strict";

// The function deploys with its own deno.json; dev and tests use the root one. A package's version is
// written twice, so this test is what keeps the two the same.
Deno.test("deno.json pins each of the function's packages to the same version as the root", async () => {
  const root = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const fn = JSON.parse(
    await Deno.readTextFile(new URL("../supabase/functions/create-order/deno.json", import.meta.url)),
  );
  assert.ok(Object.keys(fn.imports).length > 0);
  for (const [name, specifier] of Object.entries(fn.imports)) {
    assert.equal(root.imports[name], specifier, `${name} differs between deno.json files`);
    assert.match(specifier as string, /^npm:/);
  }
});

// The function checks keys itself (contract, Authentication): the platform's JWT check would answer 401
// without CORS headers and refuse the newer sb_publishable_/sb_secret_ keys.
Deno.test("supabase/config.toml turns the platform's JWT check off for create-order and points at its deno.json", async () => {
  const toml = await Deno.readTextFile(new URL("../supabase/config.toml", import.meta.url));
  const section = toml.split(/^\[/m).find((part) => part.startsWith("functions.create-order]"));
  assert.ok(section, "a [functions.create-order] section");
  assert.match(section, /^verify_jwt = false$/m);
  assert.match(section, /^import_map = "\.\/functions\/create-order\/deno\.json"$/m);
  assert.match(toml, /^\[db\.seed\]\nenabled = true\nsql_paths = \["\.\/seed\.sql"\]$/m);
});
