/**
 * The command line of `deno task db:diff`, and the version of the migration it writes. Pure.
 */
import { parseTaskFlags, TaskUsageError } from "./task_flags.ts";

const USAGE = "deno task db:diff <name> [--version <14 digits>], or deno task db:diff --check";

/** `--check`, or the new migration's name (and the version to give it, when not the next one). */
export function parseDbDiffArgs(
  args: readonly string[],
): { check: boolean; name?: string; version?: string } {
  const check = args.includes("--check");
  const { flags, positional } = parseTaskFlags(args.filter((arg) => arg !== "--check"), ["version"], USAGE);
  if (check) {
    if (positional.length > 0 || flags.version) {
      throw new TaskUsageError(`--check writes nothing, so it takes no name or version: ${USAGE}`);
    }
    return { check };
  }
  if (positional.length !== 1) throw new TaskUsageError(`name the migration: ${USAGE}`);
  const [name] = positional;
  // every migration file is <timestamp>_<lower-case words>.sql (tests/migrations_test.ts)
  if (!/^[a-z][a-z_]*$/.test(name)) {
    throw new TaskUsageError(
      `a migration's name is lower-case words joined by _ (say what it does): got ${name}`,
    );
  }
  if (flags.version !== undefined && !/^\d{14}$/.test(flags.version)) {
    throw new TaskUsageError(`--version is a migration's 14-digit timestamp: got ${flags.version}`);
  }
  return { check, name, version: flags.version };
}

/**
 * The next migration's version: the time `now` in UTC (yyyymmddhhmmss), or, when a migration is newer than
 * that (their versions run ahead of the clock), the newest one's plus 100.
 */
export function nextMigrationVersion(migrationNames: readonly string[], now: Date): string {
  const clock = now.toISOString().replace(/\D/g, "").slice(0, 14);
  const newest = migrationNames.map((name) => name.slice(0, 14)).sort().at(-1);
  if (newest === undefined || clock > newest) return clock;
  return (BigInt(newest) + 100n).toString();
}

/**
 * Why a version given with `--version` cannot be the next migration's, or null: it must come after every
 * migration there is (a project applies them in order of version, and two of one version are one too many).
 */
export function givenVersionProblem(version: string, migrationNames: readonly string[]): string | null {
  const newest = migrationNames.map((name) => name.slice(0, 14)).sort().at(-1);
  if (newest === undefined || version > newest) return null;
  return `--version ${version} must come after the newest migration's, ${newest}: a project applies ` +
    "migrations in order of version, each version once";
}
