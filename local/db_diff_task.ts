/**
 * `deno task db:diff <name>`: writes the next migration, supabase/migrations/<version>_<name>.sql, from the
 * difference between the database the migrations leave and the one supabase/schemas/ describes (db_diff.ts).
 * `deno task db:diff --check`: says there is nothing to write (exit 0), or prints the difference (exit 1).
 * Its scratch databases are built on the PostgreSQL server of DATABASE_URL when it is on this machine (its own
 * database is left alone), by default postgres://postgres@127.0.0.1:5432/postgres.
 */
import { connectPostgres, DatabaseUnavailableError, parseDatabaseUrl } from "./database_connection.ts";
import { isLocalDatabase } from "./reset_consent.ts";
import { diffSchemas, type SchemaDiff } from "./db_diff.ts";
import { readMigrations } from "./migrate.ts";
import { givenVersionProblem, nextMigrationVersion, parseDbDiffArgs } from "./db_diff_args.ts";
import { TaskUsageError } from "./task_flags.ts";

const DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres";
const MIGRATIONS_DIR = new URL("../supabase/migrations/", import.meta.url);

let args;
try {
  args = parseDbDiffArgs(Deno.args);
} catch (error) {
  if (!(error instanceof TaskUsageError)) throw error;
  console.error(`db:diff: ${error.message}`);
  Deno.exit(2);
}

const migrationNames = (await readMigrations()).map((migration) => migration.name);
const versionProblem = args.version === undefined ? null : givenVersionProblem(args.version, migrationNames);
if (versionProblem !== null) {
  console.error(`db:diff: ${versionProblem}`);
  Deno.exit(2);
}

const server = Deno.env.get("DATABASE_URL") || DEFAULT_SERVER;
try {
  // a hosted project's database is no place for scratch databases
  if (!isLocalDatabase(parseDatabaseUrl(server))) {
    console.error(
      "db:diff: DATABASE_URL names a server elsewhere; db:diff builds its scratch databases on a " +
        `PostgreSQL of this machine: unset DATABASE_URL (for ${DEFAULT_SERVER}), or point it at one here`,
    );
    Deno.exit(2);
  }
  await (await connectPostgres(server, 1)).close();
} catch (error) {
  if (!(error instanceof DatabaseUnavailableError)) throw error;
  console.error(`db:diff: ${error.message}`);
  Deno.exit(2);
}

let diff: SchemaDiff;
try {
  diff = await diffSchemas(server);
} catch (error) {
  // a schema file or a migration that does not run (its file and PostgreSQL's words), or what pg-delta wrote
  console.error(`db:diff: ${(error as Error).message}`);
  Deno.exit(1);
}
if (diff.errors.length > 0) {
  console.error(`db:diff: pg-delta could not read every object:\n${diff.errors.join("\n")}`);
  Deno.exit(2);
}
if (diff.sql === null && diff.uncovered.length === 0) {
  console.log("db:diff: nothing to write: the migrations leave the database supabase/schemas/ describes");
  Deno.exit(0);
}
if (args.check) {
  if (diff.sql !== null) {
    console.log(
      `db:diff: supabase/schemas/ differs from the migrations; the migration would be:\n\n${diff.sql}`,
    );
  }
  _warnUncovered(diff);
  _warnDestructive(diff);
  Deno.exit(1);
}
if (diff.sql === null) {
  _warnUncovered(diff);
  Deno.exit(1);
}

const version = args.version ?? nextMigrationVersion(migrationNames, new Date());
const file = new URL(`${version}_${args.name}.sql`, MIGRATIONS_DIR);
await Deno.writeTextFile(file, migrationText(args.name!, diff.sql), { createNew: true });
console.log(`db:diff: wrote supabase/migrations/${version}_${args.name}.sql: review it, say why at its top`);
_warnDestructive(diff);
if (diff.uncovered.length > 0) {
  _warnUncovered(diff);
  Deno.exitCode = 1;
}

/** The migration file: a comment for its author to finish (every migration opens with one), then the SQL. */
function migrationText(name: string, sql: string): string {
  return `-- ${
    name.replaceAll("_", " ")
  }: written by \`deno task db:diff\` from supabase/schemas/; say here why.\n\n` +
    `${sql.trimEnd()}\n`;
}

/** What pg-delta's SQL leaves different: the author writes it (or moves a column to the end of its table). */
function _warnUncovered(found: SchemaDiff): void {
  if (found.uncovered.length === 0) return;
  console.error(
    `db:diff: ${found.sql === null ? "pg-delta writes nothing, yet" : "after this migration"} the catalogs ` +
      "still differ; add the statements by hand (a new column goes last in its table, as a migration adds " +
      `it):\n${found.uncovered.join("\n")}`,
  );
}

function _warnDestructive(found: SchemaDiff): void {
  if (found.destructive.length === 0) return;
  console.error(
    `db:diff: ${found.destructive.length} statement(s) drop or rewrite data (a renamed column is a drop and ` +
      `an add): check each before it runs on a project:\n${found.destructive.join("\n")}`,
  );
}
