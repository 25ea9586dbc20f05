/**
 * Supabase's type generator, run as the Supabase CLI runs it: `supabase gen types typescript` starts the
 * `supabase/postgres-meta` image with `node dist/server/server.js` and PG_META_GENERATE_TYPES set, which
 * prints the types of the database at PG_META_DB_URL and exits. Here the same package comes from npm at
 * the version CLI 2.117.0 pins (`supabase services`: supabase/postgres-meta v0.99.0), with every
 * dependency fixed by `local/postgres_meta/package-lock.json`, and runs on the machine's Node.js.
 */

const PACKAGE_DIR = new URL("./postgres_meta/", import.meta.url);
const INSTALLS_DIR = new URL("../.local/postgres-meta/", import.meta.url);

/** The oldest Node.js the generator supports (its package's `engines`). */
const MIN_NODE_MAJOR = 20;

/** The generator's version, as `local/postgres_meta/package.json` pins it. */
export async function postgresMetaVersion(): Promise<string> {
  const manifest = JSON.parse(await Deno.readTextFile(new URL("package.json", PACKAGE_DIR)));
  return manifest.dependencies["@supabase/postgres-meta"];
}

/**
 * The TypeScript types of the `public` schema of the database at `databaseUrl`, exactly as the
 * generator prints them (the environment is the CLI's for `gen types typescript` of that schema).
 */
export async function generateTypes(databaseUrl: string): Promise<string> {
  const server = await installPostgresMeta();
  const { success, stdout, stderr } = await new Deno.Command(await _node(), {
    args: ["--no-warnings", server],
    env: {
      PG_META_DB_URL: databaseUrl,
      PG_META_GENERATE_TYPES: "typescript",
      PG_META_GENERATE_TYPES_INCLUDED_SCHEMAS: "public",
      PG_META_GENERATE_TYPES_DETECT_ONE_TO_ONE_RELATIONSHIPS: "true",
      PG_CONN_TIMEOUT_SECS: "15",
      PG_QUERY_TIMEOUT_SECS: "15",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) {
    throw new Error(`@supabase/postgres-meta failed: ${new TextDecoder().decode(stderr).trim()}`);
  }
  return new TextDecoder().decode(stdout);
}

/**
 * The path of the generator's `dist/server/server.js`, installed first when this lock file was never
 * installed: `npm ci` into a new folder named after the lock's hash, then renamed into place, so two runs
 * at once never share a half-written install and a changed lock never reuses an old one.
 */
export async function installPostgresMeta(): Promise<string> {
  const lock = await Deno.readFile(new URL("package-lock.json", PACKAGE_DIR));
  const hash = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", lock)).slice(0, 8))
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
  const target = new URL(`${hash}/`, INSTALLS_DIR);
  const server = new URL("node_modules/@supabase/postgres-meta/dist/server/server.js", target).pathname;
  if (await _exists(server)) return server;

  await Deno.mkdir(INSTALLS_DIR, { recursive: true });
  const work = await Deno.makeTempDir({ dir: INSTALLS_DIR.pathname, prefix: "installing-" });
  try {
    for (const file of ["package.json", "package-lock.json"]) {
      await Deno.copyFile(new URL(file, PACKAGE_DIR), `${work}/${file}`);
    }
    // no install scripts: the only one builds a CPU profiler for Sentry, which type generation never loads
    const { success, stderr } = await new Deno.Command(_npm(), {
      args: ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
      cwd: work,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) {
      throw new Error(
        `npm ci of @supabase/postgres-meta failed (it needs the npm registry once): ${
          new TextDecoder().decode(stderr).trim()
        }`,
      );
    }
    try {
      await Deno.rename(work, target);
    } catch (error) {
      // another run installed the same lock first: keep theirs
      if (!(await _exists(server))) throw error;
    }
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
  return server;
}

/** Node.js from PATH (or NODE), refused with a sentence when missing or older than the generator needs. */
async function _node(): Promise<string> {
  const node = Deno.env.get("NODE") ?? "node";
  let version: string;
  try {
    const { stdout } = await new Deno.Command(node, { args: ["--version"], stdout: "piped" }).output();
    version = new TextDecoder().decode(stdout).trim();
  } catch {
    throw new Error(
      `gen:types runs Supabase's generator (@supabase/postgres-meta) on Node.js ${MIN_NODE_MAJOR} or ` +
        `later, and found no \`${node}\` on PATH: install Node.js or set NODE to its path`,
    );
  }
  const major = Number(/^v(\d+)\./.exec(version)?.[1]);
  if (!(major >= MIN_NODE_MAJOR)) {
    throw new Error(
      `gen:types needs Node.js ${MIN_NODE_MAJOR} or later for @supabase/postgres-meta: ` +
        `${node} is ${version}`,
    );
  }
  return node;
}

function _npm(): string {
  return Deno.env.get("NPM") ?? "npm";
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
