/**
 * `deno task catalogue:import --store <store id> <file.csv>`: upserts the store's catalogue at DATABASE_URL
 * (else the local stack's) from a CSV file (see `catalogue_file.ts`, and docs/catalogue-sample.csv), and
 * prints what it inserted, updated and left unchanged. A file with any bad line writes nothing: every
 * problem is printed with its line and column, exit 1. Exit 2 for a command line or database it cannot use.
 */
import { describeLineProblem, readCatalogueFile } from "./catalogue_file.ts";
import {
  CatalogueImportError,
  importCatalogue,
  type ImportCounts,
  type ImportReport,
} from "./catalogue_import.ts";
import { parseTaskFlags, TaskUsageError } from "./task_flags.ts";
import { describeDatabase, openTaskDatabase } from "./task_database.ts";

const USAGE = "deno task catalogue:import --store <store id> <file.csv>";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `inserted 2, updated 1, unchanged 5`. */
export function describeCounts(counts: ImportCounts): string {
  return `inserted ${counts.inserted}, updated ${counts.updated}, unchanged ${counts.unchanged}`;
}

function _refuse(path: string, problems: string[]): never {
  console.error(
    `catalogue:import: ${path} has ${problems.length === 1 ? "1 problem" : `${problems.length} problems`}; ` +
      "nothing was imported:",
  );
  for (const problem of problems) console.error(`  ${problem}`);
  Deno.exit(1);
}

if (import.meta.main) {
  try {
    const { flags, positional } = parseTaskFlags(Deno.args, ["store"], USAGE);
    if (flags.store === undefined || positional.length !== 1) {
      throw new TaskUsageError(`a store id and one file are required: ${USAGE}`);
    }
    if (!UUID.test(flags.store)) {
      throw new TaskUsageError(
        `--store must be a store's id (a UUID, as deno task store:add prints it): got ${
          JSON.stringify(flags.store)
        }`,
      );
    }
    const [path] = positional;
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      throw new TaskUsageError(`cannot read ${path}: ${(error as Error).message}`);
    }
    const read = readCatalogueFile(text);
    if (!read.ok) _refuse(path, read.problems.map(describeLineProblem));
    const url = Deno.env.get("DATABASE_URL");
    const db = await openTaskDatabase("catalogue:import", url);
    let outcome: ImportReport | CatalogueImportError;
    try {
      outcome = await importCatalogue(db, flags.store.toLowerCase(), read.file);
    } catch (error) {
      if (!(error instanceof CatalogueImportError)) throw error;
      outcome = error;
    } finally {
      await db.close();
    }
    if (outcome instanceof CatalogueImportError) {
      if (outcome.problems.length > 0) _refuse(path, outcome.problems.map(describeLineProblem));
      throw new TaskUsageError(outcome.message);
    }
    console.error(`catalogue:import: ${path} into store ${flags.store} at ${describeDatabase(url)}`);
    console.log(`products: ${describeCounts(outcome.products)}`);
    console.log(`variants: ${describeCounts(outcome.variants)}`);
  } catch (error) {
    if (!(error instanceof TaskUsageError)) throw error;
    console.error(`catalogue:import: ${error.message}`);
    Deno.exit(2);
  }
}
