/**
 * `deno task orders`: the latest orders with their items and e-mail states, then any dead e-mails, read
 * straight from the local database (DATABASE_URL, else .local/db/). PGlite serves one process at a time,
 * so over PGlite it waits for `deno task dev` to be stopped.
 */
import { openPglite, openPostgres } from "./open_database.ts";
import { deadEmails, latestOrders } from "./order_report.ts";

const LOCK = ".local/db.pid";
const limit = Number(Deno.args[0] ?? 5);

/** Whether a `deno task dev` process holds .local/db/ (it writes its pid to .local/db.pid). */
async function devServerRunning(): Promise<boolean> {
  try {
    const pid = Number(await Deno.readTextFile(LOCK));
    return Number.isInteger(pid) && (await Deno.stat(`/proc/${pid}`).then(() => true, () => false));
  } catch {
    return false;
  }
}

const url = Deno.env.get("DATABASE_URL");
if (!url && await devServerRunning()) {
  console.error(
    "deno task dev is running on .local/db/: stop it (Ctrl-C) first, PGlite serves one process at a time",
  );
  Deno.exit(1);
}
const db = url ? openPostgres(url, 1) : await openPglite(".local/db");
try {
  console.table(await latestOrders(db, limit));
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
