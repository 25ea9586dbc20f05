/**
 * `deno task gen:types`: writes supabase/functions/_shared/database.types.ts with Supabase's own generator
 * (`postgres_meta.ts`), its output unchanged, from the migrations: a fresh in-memory PGlite with every
 * migration applied, served to the generator on a loopback socket (@electric-sql/pglite-socket); or from
 * the PostgreSQL at DATABASE_URL when that is set (as `deno task db:reset` left it).
 * `tests/database_types_test.ts` fails while the file is stale.
 */
import type { PGlite } from "@electric-sql/pglite";
import { resetDatabase } from "./migrate.ts";
import { generateTypes } from "./postgres_meta.ts";
import { pgliteDatabase } from "./sql_database.ts";

/** Where the generated types live, beside the code that uses them. */
export const DATABASE_TYPES_FILE = new URL(
  "../supabase/functions/_shared/database.types.ts",
  import.meta.url,
);

/** The generator's types of the migrations, on a fresh in-memory PGlite. */
export async function typesOfMigrations(): Promise<string> {
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create();
  try {
    await resetDatabase(pgliteDatabase(pglite));
    return await typesOfPglite(pglite);
  } finally {
    await pglite.close();
  }
}

/** The generator's types of an open PGlite, lent to it for the run through a loopback socket. */
export async function typesOfPglite(pglite: PGlite): Promise<string> {
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  // port 0: a free port; the generator opens a small pool, which the server serialises onto PGlite
  const server = new PGLiteSocketServer({ db: pglite, host: "127.0.0.1", port: 0, maxConnections: 10 });
  await server.start();
  try {
    return await generateTypes(`postgres://postgres@${server.getServerConn()}/postgres`);
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const url = Deno.env.get("DATABASE_URL");
  try {
    const types = url ? await generateTypes(url) : await typesOfMigrations();
    await Deno.writeTextFile(DATABASE_TYPES_FILE, types);
    console.log(
      `gen:types: wrote ${DATABASE_TYPES_FILE.pathname} from ${url ? "DATABASE_URL" : "the migrations"}`,
    );
  } catch (error) {
    console.error(`gen:types: ${error instanceof Error ? error.message : error}`);
    Deno.exitCode = 1;
  }
}
