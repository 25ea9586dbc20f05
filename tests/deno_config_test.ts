import assert from "node:assert/strict";

const FUNCTIONS_DIR = new URL("../supabase/functions/", import.meta.url);

/** Every function folder (a folder of supabase/functions/ other than `_shared`). */
async function functionNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(FUNCTIONS_DIR)) {
    if (entry.isDirectory && !entry.name.startsWith("_")) names.push(entry.name);
  }
  return names.sort();
}

async function readJson(url: URL): Promise<{ imports: Record<string, string> }> {
  return JSON.parse(await Deno.readTextFile(url));
}

// npm:<name>@<major>.<minor>.<patch>[-prerelease]: one version, never a range (^, ~, *, x, >=, ||, a tag)
const EXACT_NPM = /^npm:(@[a-z0-9._-]+\/)?[a-z0-9._-]+@\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

Deno.test("the exact-version rule for deno.json refuses ranges and tags", () => {
  for (const exact of ["npm:zod@4.6.7", "npm:@supabase/supabase-js@2.119.1", "npm:x@1.0.0-rc.1"]) {
    assert.match(exact, EXACT_NPM);
  }
  for (
    const range of [
      "npm:zod@^4.6.7",
      "npm:zod@~4.6.7",
      "npm:zod@4",
      "npm:zod@4.6",
      "npm:zod@4.x",
      "npm:zod@latest",
      "npm:zod@>=4.6.7",
      "npm:zod",
      "npm:zod@4.6.7 || 5.0.0",
    ]
  ) {
    assert.doesNotMatch(range, EXACT_NPM, range);
  }
});

// A deployed function resolves its imports from its own deno.json: a range there could deploy other
// versions of supabase-js, zod or resend than the ones the tests ran with.
Deno.test("deno.json of the root and of every function pins exact npm versions", async () => {
  const files = [
    new URL("../deno.json", import.meta.url),
    ...(await functionNames()).map((name) => new URL(`${name}/deno.json`, FUNCTIONS_DIR)),
  ];
  assert.ok(files.length >= 3, "the root and both functions");
  for (const file of files) {
    const { imports } = await readJson(file);
    assert.ok(Object.keys(imports).length > 0, `${file.pathname} has imports`);
    for (const [name, specifier] of Object.entries(imports)) {
      assert.match(specifier, EXACT_NPM, `${file.pathname}: ${name} is ${specifier}, not one exact version`);
    }
  }
});

// The functions deploy with their own deno.json; dev and tests use the root one. A package's version is
// written twice, so this test is what keeps them the same.
Deno.test("deno.json of every function pins each package to the same version as the root", async () => {
  const root = await readJson(new URL("../deno.json", import.meta.url));
  for (const name of await functionNames()) {
    const fn = await readJson(new URL(`${name}/deno.json`, FUNCTIONS_DIR));
    for (const [pkg, specifier] of Object.entries(fn.imports)) {
      assert.equal(root.imports[pkg], specifier, `${pkg} differs between deno.json and ${name}/deno.json`);
    }
  }
});

Deno.test("deno.lock resolves exactly the root's npm specifiers, nothing stale", async () => {
  const root = await readJson(new URL("../deno.json", import.meta.url));
  const lock = JSON.parse(await Deno.readTextFile(new URL("../deno.lock", import.meta.url)));
  assert.deepEqual([...lock.workspace.dependencies].sort(), Object.values(root.imports).sort());
  assert.deepEqual(Object.keys(lock.specifiers).sort(), Object.values(root.imports).sort());
});

// Each function checks keys itself (contract, Authentication): the platform's JWT check would answer 401
// without CORS headers and refuse the newer sb_publishable_/sb_secret_ keys.
Deno.test("supabase/config.toml turns the platform's JWT check off for every function and points at its deno.json", async (t) => {
  const toml = await Deno.readTextFile(new URL("../supabase/config.toml", import.meta.url));
  for (const name of await functionNames()) {
    await t.step(name, () => {
      const section = toml.split(/^\[/m).find((part) => part.startsWith(`functions.${name}]`));
      assert.ok(section, `a [functions.${name}] section`);
      assert.match(section, /^verify_jwt = false$/m);
      assert.match(section, new RegExp(`^import_map = "\\./functions/${name}/deno\\.json"$`, "m"));
      assert.match(section, new RegExp(`^entrypoint = "\\./functions/${name}/index\\.ts"$`, "m"));
    });
  }
  assert.match(toml, /^\[db\.seed\]\nenabled = true\nsql_paths = \["\.\/seed\.sql"\]$/m);
});
