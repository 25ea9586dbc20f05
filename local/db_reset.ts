/** `deno task db:reset`: roles, migrations and seed applied to DATABASE_URL, dropping what was there. */
import { resetDatabase } from "./migrate.ts";
import { openPostgres } from "./open_database.ts";

const url = Deno.env.get("DATABASE_URL");
if (!url) {
  console.error(
    "DATABASE_URL is not set: db:reset needs the PostgreSQL to reset, e.g. postgres://postgres@127.0.0.1:5432/orders",
  );
  Deno.exit(2);
}
const db = openPostgres(url, 1);
try {
  await resetDatabase(db, { dropExisting: true });
  console.log(`db:reset: migrations and seed applied to ${new URL(url).pathname.slice(1) || "the database"}`);
} finally {
  await db.close();
}
