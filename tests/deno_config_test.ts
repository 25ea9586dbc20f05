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
