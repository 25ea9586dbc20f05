/** Counts of what one test store has in each order table: the "nothing partial, nothing lost" check. */
import type { SqlDatabase } from "../../local/sql_database.ts";

/** Rows of one store's orders, by table. */
export interface StoreRows {
  orders: number;
  items: number;
  history: number;
  emails: number;
  idempotencyKeys: number;
  counter: number | null;
}

/** Counts the rows of `storeId` in every table create_order writes. */
export async function countStoreRows(db: SqlDatabase, storeId: string): Promise<StoreRows> {
  const [row] = await db.query<StoreRows>(
    `select
       (select count(*)::int from public.orders where store_id = $1) as orders,
       (select count(*)::int from public.order_items i join public.orders o on o.id = i.order_id
        where o.store_id = $1) as items,
       (select count(*)::int from public.order_status_history h join public.orders o on o.id = h.order_id
        where o.store_id = $1) as history,
       (select count(*)::int from public.email_outbox e join public.orders o on o.id = e.order_id
        where o.store_id = $1) as emails,
       (select count(*)::int from public.idempotency_keys where store_id = $1) as "idempotencyKeys",
       (select max(last_sequence)::int from public.order_counters where store_id = $1) as counter`,
    [storeId],
  );
  return row;
}
