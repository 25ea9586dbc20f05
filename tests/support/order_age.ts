/** Making an order older than it is, for tests of what the clock does to orders (the database's clock is real). */
import type { SqlDatabase } from "../../local/sql_database.ts";

/**
 * Moves an order's creation `minutes` back, as the tables' owner with triggers off (an order's time is
 * otherwise immutable), as a restore would write it. Its year and number move with it when that crosses
 * into an earlier year of its zone (the year check holds with triggers off too): on 2 January an order aged
 * 73 hours is numbered in the year before.
 */
export async function ageOrder(db: SqlDatabase, orderId: string, minutes: number): Promise<void> {
  await db.asRole("postgres", async (s) => {
    await s.query("set local session_replication_role = replica");
    await s.query(
      `update public.orders o
       set created_at = aged.at,
         order_year = public.order_year_of(aged.at, o.time_zone),
         order_number = public.format_order_number(public.order_year_of(aged.at, o.time_zone), o.order_sequence)
       from (select now() - make_interval(mins => $2) as at) aged
       where o.id = $1`,
      [orderId, minutes],
    );
  });
}
