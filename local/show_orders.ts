/**
 * `deno task orders`: the latest orders with their items and e-mail states, read straight from the
 * local database (DATABASE_URL, else .local/db/). PGlite serves one process at a time, so over PGlite
 * it waits for `deno task dev` to be stopped.
 */
import { openPglite, openPostgres } from "./open_database.ts";

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
  const orders = await db.query(
    `select o.order_number, o.status::text, o.payment_method, o.total_amount::text, o.checkout_fee::text,
       o.final_amount::text, o.created_at,
       (select string_agg(i.quantity || ' x ' || i.product_name || coalesce(' (' || i.variant_name || ')', '')
          || ' @ ' || i.unit_price, '; ' order by i.position) from public.order_items i where i.order_id = o.id) as items,
       (select string_agg(e.kind || ': ' || e.status, ', ' order by e.kind) from public.email_outbox e
          where e.order_id = o.id) as emails
     from public.orders o order by o.created_at desc limit $1`,
    [limit],
  );
  console.table(orders);
} finally {
  await db.close();
}
