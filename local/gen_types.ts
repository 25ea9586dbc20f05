/**
 * `deno task gen:types`: writes supabase/functions/_shared/database.types.ts from the migrated database,
 * in the format of `supabase gen types typescript --local`: a fresh in-memory PGlite with every migration
 * applied, or the PostgreSQL at DATABASE_URL when that is set (as `deno task db:reset` left it).
 * `tests/database_types_test.ts` fails while the file is stale.
 */
import { openPglite, openPostgres } from "./open_database.ts";
import { readSchemaMetadata } from "./schema_metadata.ts";
import { renderDatabaseTypes } from "./typescript_types.ts";

/** Where the generated types live, beside the code that uses them. */
export const DATABASE_TYPES_FILE = new URL(
  "../supabase/functions/_shared/database.types.ts",
  import.meta.url,
);

if (import.meta.main) {
  const url = Deno.env.get("DATABASE_URL");
  const db = url ? openPostgres(url, 1) : await openPglite();
  try {
    await Deno.writeTextFile(DATABASE_TYPES_FILE, renderDatabaseTypes(await readSchemaMetadata(db)));
    console.log(
      `gen:types: wrote ${DATABASE_TYPES_FILE.pathname} from ${url ? "DATABASE_URL" : "the migrations"}`,
    );
  } finally {
    await db.close();
  }
}
