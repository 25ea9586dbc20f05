/**
 * The migrations as main's history has them, read with git, for tests/landed_migrations_test.ts.
 *
 * The rule. A migration file has landed once a commit of main's first-parent history contains it: the
 * commit that brought it to main (the merge of its branch, or a commit made on main). Its landed version is
 * its content in the first such commit. Main's history is read up to where this checkout's history meets
 * it: `git merge-base main HEAD` (or origin/main), so that a branch is held to what had landed when it
 * branched (or last merged main), and main to everything; without a main ref, HEAD's own first-parent
 * history. Without history (no .git, git missing, a shallow clone) there is nothing to read: the test skips
 * with a notice.
 */

const ROOT = new URL("../..", import.meta.url);
export const MIGRATIONS_DIR = "supabase/migrations/";

/** One commit of the first-parent history that touched the migrations, and the files it holds. */
export interface HistoryCommit {
  sha: string;
  /** Every migration file in that commit's tree: file name → blob id. */
  files: Map<string, string>;
}

/** The history the rule reads, oldest first; or why there is none. */
export type MigrationHistory =
  | { base: string; ref: string; commits: HistoryCommit[] }
  | { skipped: string };

async function _git(args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const output = await new Deno.Command("git", { args, cwd: ROOT, stdout: "piped", stderr: "piped" })
      .output();
    return { ok: output.success, out: new TextDecoder().decode(output.stdout).trim() };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { ok: false, out: "" };
    throw error;
  }
}

async function _gitOrThrow(args: string[]): Promise<string> {
  const { ok, out } = await _git(args);
  if (!ok) throw new Error(`git ${args.join(" ")} failed`);
  return out;
}

/** Reads main's first-parent history of supabase/migrations (see the rule above). */
export async function readMigrationHistory(): Promise<MigrationHistory> {
  const shallow = await _git(["rev-parse", "--is-shallow-repository"]);
  if (!shallow.ok) return { skipped: "this checkout has no git history (no .git, or no git)" };
  if (shallow.out === "true") {
    return { skipped: "this is a shallow clone: the history of the migrations is cut" };
  }
  let ref = "HEAD";
  for (const candidate of ["main", "origin/main"]) {
    if ((await _git(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`])).ok) {
      ref = candidate;
      break;
    }
  }
  const base = ref === "HEAD"
    ? await _gitOrThrow(["rev-parse", "HEAD"])
    : await _gitOrThrow(["merge-base", ref, "HEAD"]);
  const shas =
    (await _gitOrThrow(["log", "--first-parent", "--reverse", "--format=%H", base, "--", MIGRATIONS_DIR]))
      .split("\n").filter(Boolean);
  const commits: HistoryCommit[] = [];
  for (const sha of shas) {
    const files = new Map<string, string>();
    for (const line of (await _gitOrThrow(["ls-tree", sha, MIGRATIONS_DIR])).split("\n").filter(Boolean)) {
      const [meta, path] = line.split("\t");
      if (path.endsWith(".sql")) files.set(path.slice(MIGRATIONS_DIR.length), meta.split(" ")[2]);
    }
    commits.push({ sha, files });
  }
  return { base, ref, commits };
}

/** The blob ids of the working tree's migration files, by file name. */
export async function workingTreeBlobs(): Promise<Map<string, string>> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL(MIGRATIONS_DIR, ROOT))) {
    if (entry.isFile && entry.name.endsWith(".sql")) names.push(entry.name);
  }
  names.sort();
  const blobs = (await _gitOrThrow(["hash-object", ...names.map((name) => MIGRATIONS_DIR + name)])).split(
    "\n",
  );
  return new Map(names.map((name, i) => [name, blobs[i]]));
}

/** A file's content in a commit. */
export function fileAt(sha: string, name: string): Promise<string> {
  return _gitOrThrow(["show", `${sha}:${MIGRATIONS_DIR}${name}`]).then((text) => `${text}\n`);
}

/** The blob id of a file in a commit, or null when the commit does not hold it. */
export async function blobAt(sha: string, name: string): Promise<string | null> {
  const { ok, out } = await _git(["rev-parse", "--verify", "--quiet", `${sha}:${MIGRATIONS_DIR}${name}`]);
  return ok ? out : null;
}
