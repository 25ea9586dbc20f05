/**
 * Fault injection on a real PostgreSQL: a row lock held by another session (a slow database), the
 * backend that waits on it (to terminate mid-transaction), and a port where nothing listens.
 */
import { openPostgres } from "../../local/open_database.ts";
import type { SqlDatabase } from "../../local/sql_database.ts";
import { POSTGRES_SERVER_URL } from "./databases.ts";

/** A transaction of another session holding a lock until released. */
export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Runs `statement` (say a `select ... for update`) in a transaction on a connection of its own (not the
 * stack's pool) and keeps it open until released.
 */
export async function holdLock(
  db: SqlDatabase,
  statement: string,
  params: unknown[] = [],
): Promise<HeldLock> {
  const own = await ownPool(db, 1);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  // as the tables' owner: locking a row takes a write privilege no API role has on the order tables
  const transaction = own.asRole("postgres", async (session) => {
    await session.query(statement, params);
    locked();
    await released;
  });
  await Promise.race([isLocked, transaction]);
  return {
    async release() {
      release();
      try {
        await transaction;
      } finally {
        await own.close();
      }
    },
  };
}

/** A pool of its own on the same PostgreSQL database as `db`, with `max` connections. */
export async function ownPool(db: SqlDatabase, max: number): Promise<SqlDatabase> {
  const [{ name }] = await db.query<{ name: string }>("select current_database() as name");
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return openPostgres(url.href, max);
}

/** The pid of a backend of this database waiting on a lock while running create_order; polls up to `ms`. */
export async function waitForBlockedCreateOrder(db: SqlDatabase, ms = 5_000): Promise<number> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const rows = await db.query<{ pid: number }>(
      `select pid from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query like '%create_order%'`,
    );
    if (rows.length > 0) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no create_order call waited on a lock within ${ms} ms`);
}

/** Waits until at least `count` backends of this database wait on a lock while running create_order. */
export async function waitForBlockedCreateOrders(db: SqlDatabase, count: number, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const [row] = await db.query<{ blocked: number }>(
      `select count(*)::int as blocked from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query like '%create_order%'`,
    );
    if (row.blocked >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${count} create_order calls waited on a lock within ${ms} ms`);
}

/** Waits until no backend of this database runs create_order any more. */
export async function waitForCreateOrderIdle(db: SqlDatabase, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const rows = await db.query(
      `select 1 from pg_stat_activity
       where datname = current_database() and state = 'active' and query like '%create_order(%'
         and pid <> pg_backend_pid()`,
    );
    if (rows.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`create_order still running after ${ms} ms`);
}

/** A TCP port of 127.0.0.1 where nothing listens (bound, then closed). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
