/** Calling update-order-status as a seller's back office would, and reading what a move left behind. */
import type { SqlDatabase } from "../../local/sql_database.ts";

/** POST /functions/v1/update-order-status with the service key (or `headers`). */
export function postStatusMove(
  stack: { url: string; serviceKey: string },
  body: unknown,
  headers?: HeadersInit,
): Promise<Response> {
  return fetch(`${stack.url}/functions/v1/update-order-status`, {
    method: "POST",
    headers: headers ?? { Authorization: `Bearer ${stack.serviceKey}`, "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** One row of an order's status history, as the tests compare it. */
export interface HistoryRow {
  move: string;
  actor: string;
  note: string | null;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
}

/** An order's status history, oldest first, each move as `from>to` (`-` for the first). */
export async function historyRows(db: SqlDatabase, orderId: string): Promise<HistoryRow[]> {
  return await db.query<HistoryRow>(
    `select coalesce(from_status::text, '-') || '>' || to_status::text as move, actor, note, carrier,
       tracking_number, tracking_url
     from public.order_status_history where order_id = $1 order by id`,
    [orderId],
  );
}

/** An order's status e-mails in the outbox: kind, recipient and state. */
export async function statusEmailRows(db: SqlDatabase, orderId: string) {
  return await db.query<{ kind: string; to_email: string; status: string }>(
    `select kind, to_email, status from public.email_outbox
     where order_id = $1 and kind like 'status\\_%' order by created_at, kind`,
    [orderId],
  );
}

/** The order's current status. */
export async function orderStatus(db: SqlDatabase, orderId: string): Promise<string> {
  const [row] = await db.query<{ status: string }>("select status::text from public.orders where id = $1", [
    orderId,
  ]);
  return row.status;
}
