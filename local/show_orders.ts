/**
 * `deno task orders`: the latest orders with their items and e-mail states, then any dead e-mails, read
 * straight from the local stack's database: DATABASE_URL, else the PGlite in .local/db/. PGlite serves one
 * process at a time: while `deno task dev` holds .local/db/, this says so and exits 2.
 */
import { DataDirInUseError } from "./data_dir_lock.ts";
import { connectPostgresOrExit } from "./database_connection.ts";
import { openPglite } from "./open_database.ts";
import { deadEmails, describeNoOrders, latestOrders } from "./order_report.ts";
import type { SqlDatabase } from "./sql_database.ts";

const limit = Number(Deno.args[0] ?? 5);
const url = Deno.env.get("DATABASE_URL");
let db: SqlDatabase;
try {
  db = url ? await connectPostgresOrExit("orders", url, 1) : await openPglite(".local/db", "the orders task");
} catch (error) {
  if (!(error instanceof DataDirInUseError)) throw error;
  console.error(
    `orders: ${error.message}. Stop it (Ctrl-C in its terminal) and run this again; ` +
      "to read orders while the stack runs, run both over PostgreSQL (DATABASE_URL=… for each).",
  );
  Deno.exit(2);
}
try {
  const orders = await latestOrders(db, limit);
  if (orders.length === 0) console.log(describeNoOrders(url));
  else console.table(orders);
  const dead = await deadEmails(db, 50);
  if (dead.length > 0) {
    console.log(
      `dead e-mails (${dead.length}${
        dead.length === 50 ? "+" : ""
      }): their 10th send failed, no drain sends them again.`,
    );
    console.table(dead);
    console.log(
      "To send one again once its cause is fixed: update public.email_outbox set status = 'failed', failures = 0 where id = '<outbox_id>';",
    );
  }
} finally {
  await db.close();
}
