/**
 * `deno task catalogue:import --store <store id> <file.csv>`: upserts the store's catalogue at DATABASE_URL
 * (else the local stack's) from a CSV file (see `catalogue_file.ts`, and docs/catalogue-sample.csv), and
 * prints what it inserted, updated and left unchanged, with notes (an inactive store, a price of 0.00). A
 * file with any bad line writes nothing: every problem of every line is printed with its line and column,
 * exit 1. Exit 2 for a command line or database it cannot use.
 */
import { decodeUtf8 } from "./csv.ts";
import { describeLineProblem, readCatalogueFile } from "./catalogue_file.ts";
import {
  CatalogueImportError,
  importCatalogue,
  type ImportCounts,
  type ImportReport,
} from "./catalogue_import.ts";
import { catalogueNotes, findStore } from "./catalogue_notes.ts";
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

/** The store id and the file's path from the command line. */
function _arguments(): { storeId: string; path: string } {
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
  return { storeId: flags.store.toLowerCase(), path: positional[0] };
}

async function _main(): Promise<void> {
  const { storeId, path } = _arguments();
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    throw new TaskUsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const decoded = decodeUtf8(bytes);
  if ("problems" in decoded) _refuse(path, decoded.problems.map((p) => `line ${p.line}: ${p.problem}`));
  const url = Deno.env.get("DATABASE_URL");
  const db = await openTaskDatabase("catalogue:import", url);
  // decided with the database open, acted on once it is closed (an exit leaves nothing open behind it)
  let outcome: { problems: string[] } | { report: ImportReport; notes: string[] };
  try {
    const store = await findStore(db, storeId);
    if (!store) {
      throw new TaskUsageError(
        `no store has the id ${storeId} in ${describeDatabase(url)}: deno task store:add prints a store's id`,
      );
    }
    const read = readCatalogueFile(decoded.text, { currency: store.currency });
    try {
      outcome = { report: await importCatalogue(db, storeId, read), notes: catalogueNotes(store, read.file) };
    } catch (error) {
      if (!(error instanceof CatalogueImportError)) throw error;
      if (error.problems.length === 0) throw new TaskUsageError(error.message);
      outcome = { problems: error.problems.map(describeLineProblem) };
    }
  } finally {
    await db.close();
  }
  if ("problems" in outcome) _refuse(path, outcome.problems);
  console.error(`catalogue:import: ${path} into store ${storeId} at ${describeDatabase(url)}`);
  console.log(`products: ${describeCounts(outcome.report.products)}`);
  console.log(`variants: ${describeCounts(outcome.report.variants)}`);
  for (const note of outcome.notes) console.error(`catalogue:import: note: ${note}`);
}

if (import.meta.main) {
  try {
    await _main();
  } catch (error) {
    if (!(error instanceof TaskUsageError)) throw error;
    console.error(`catalogue:import: ${error.message}`);
    Deno.exit(2);
  }
}
