/** Making racing calls contend for one order row at the same moment, on PostgreSQL. */
import type { SqlDatabase } from "../../local/sql_database.ts";

/**
 * Runs `race` while another transaction holds the order row `for update`, and releases the row once
 * `waiters` sessions of the database wait for a lock: the racers then contend for the row all at once,
 * instead of one after another as they would on a quiet machine. PostgreSQL only (PGlite runs one
 * transaction at a time, so the racers would wait behind the holder forever).
 */
export async function raceBehindRowLock<T>(
  db: SqlDatabase,
  orderId: string,
  waiters: number,
  race: () => Promise<T>,
): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => locked = resolve);
  // as the tables' owner: locking a row for update takes a write privilege no API role has on orders
  const holder = db.asRole("postgres", async (s) => {
    await s.query("select 1 from public.orders where id = $1 for update", [orderId]);
    locked();
    await released;
  });
  await isLocked;
  const racing = race();
  for (;;) {
    const [{ waiting }] = await db.query<{ waiting: number }>(
      `select count(*)::int as waiting from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (waiting >= waiters) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  release();
  await holder;
  return await racing;
}
