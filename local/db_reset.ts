/**
 * `deno task db:reset [--yes]`: roles, migrations and seed applied to DATABASE_URL, dropping its public
 * schema first. Without `--yes` only a database that cannot lose anything (see reset_consent.ts).
 */
import { connectPostgresOrExit } from "./database_connection.ts";
import { resetDatabase } from "./migrate.ts";
import { inspectResetTarget, resetRefusal } from "./reset_consent.ts";

const url = Deno.env.get("DATABASE_URL");
if (!url) {
  console.error(
    "DATABASE_URL is not set: db:reset needs the PostgreSQL to reset, e.g. postgres://postgres@127.0.0.1:5432/orders",
  );
  Deno.exit(2);
}
const unknown = Deno.args.filter((arg) => arg !== "--yes");
if (unknown.length > 0) {
  console.error(`db:reset: unknown argument ${unknown[0]}: the only one is --yes`);
  Deno.exit(2);
}
// connecting checks the URL first: new URL() below then reads one that parses
const db = await connectPostgresOrExit("db:reset", url, 1);
const name = new URL(url).pathname.slice(1) || "the database";
try {
  const refusal = resetRefusal(await inspectResetTarget(db, new URL(url)), Deno.args.includes("--yes"));
  if (refusal) {
    console.error(refusal);
    Deno.exitCode = 2;
  } else {
    await resetDatabase(db, { dropExisting: true });
    console.log(`db:reset: migrations and seed applied to ${name}`);
  }
} finally {
  await db.close();
}
