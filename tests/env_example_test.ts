/**
 * What a Supabase user expects beside the functions: `supabase/functions/.env.example` naming every variable
 * they read, `.env` files kept out of git, and the CLI's own `supabase/.gitignore` entries.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/**
 * The environment variables `_shared/config.ts` and the key reader it calls (`_shared/project_keys.ts`)
 * read: `env.NAME` and helpers called with `env, "NAME"`.
 */
async function variablesReadByConfig(): Promise<string[]> {
  const source = (await Promise.all(
    ["config.ts", "project_keys.ts"].map((file) =>
      Deno.readTextFile(new URL(`supabase/functions/_shared/${file}`, ROOT))
    ),
  )).join("\n");
  const names = [
    ...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g),
    ...source.matchAll(/\benv,\s*"([A-Z][A-Z0-9_]+)"/g),
  ].map((match) => match[1]);
  return [...new Set(names)].sort();
}

Deno.test("supabase/functions/.env.example names every variable _shared/config.ts and project_keys.ts read", async () => {
  const example = await Deno.readTextFile(new URL("supabase/functions/.env.example", ROOT));
  const named = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
  const read = await variablesReadByConfig();
  assert.ok(read.length >= 15, `found ${read.length} variables in config.ts`);
  assert.deepEqual(read.filter((name) => !named.has(name)), [], "missing from .env.example");
  assert.ok(read.includes("SUPABASE_SECRET_KEYS") && read.includes("DATABASE_TIMEOUT_MS"));
  assert.ok(read.includes("LEGACY_API_KEYS"));
});

Deno.test("docs/deploy.md's Configuration table names every variable _shared/config.ts and project_keys.ts read, and none they do not", async () => {
  const deploy = await Deno.readTextFile(new URL("docs/deploy.md", ROOT));
  const table = /^## Configuration$([\s\S]*?)^## /m.exec(deploy)?.[1] ?? "";
  const rows = table.split("\n").filter((line) => line.startsWith("| `"));
  const named = new Set(
    rows.flatMap((row) => [...row.split("|")[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
  );
  const read = await variablesReadByConfig();
  assert.deepEqual(read.filter((name) => !named.has(name)), [], "missing from the table");
  // the local tasks' own variables, and the tests'
  const others = ["PORT", "DATABASE_URL", "TEST_DATABASE_URL"];
  assert.deepEqual(
    [...named].filter((name) => !read.includes(name) && !others.includes(name)),
    [],
    "not read",
  );
});

Deno.test("docs/deploy.md's checklist step for the functions' secrets names every variable the functions read, and none they do not", async () => {
  const deploy = await Deno.readTextFile(new URL("docs/deploy.md", ROOT));
  const step = /^6\. \*\*Secrets of the functions\.\*\*([\s\S]*?)^7\. /m.exec(deploy)?.[1] ?? "";
  // every code span in capitals but the prefix `SUPABASE_` and the answer code `BOOT_ERROR`
  const named = [...new Set([...step.matchAll(/`([A-Z][A-Z0-9_]{2,}[A-Z0-9])`/g)].map((match) => match[1]))]
    .filter((name) => name !== "BOOT_ERROR");
  assert.ok(named.length >= 15, `${named.length} variables named`);
  const read = await variablesReadByConfig();
  assert.deepEqual(named.filter((name) => !read.includes(name)), [], "named but read by nothing");
  assert.deepEqual(read.filter((name) => !named.includes(name)), [], "read but not named");
});

async function gitIgnores(path: string): Promise<boolean> {
  const { code } = await new Deno.Command("git", { args: ["check-ignore", "-q", path], cwd: ROOT }).output();
  return code === 0;
}

Deno.test(".gitignore keeps .env files out of git, but not .env.example", async () => {
  assert.equal(await gitIgnores("supabase/functions/.env"), true);
  assert.equal(await gitIgnores(".env"), true);
  assert.equal(await gitIgnores("supabase/functions/.env.production"), true);
  assert.equal(await gitIgnores("supabase/functions/.env.example"), false);
});

Deno.test("supabase/.gitignore ignores the CLI's .branches and .temp", async () => {
  const lines = (await Deno.readTextFile(new URL("supabase/.gitignore", ROOT))).split("\n");
  for (const entry of [".branches", ".temp"]) assert.ok(lines.includes(entry), entry);
  assert.equal(await gitIgnores("supabase/.temp/cli-latest"), true);
});
