/** What `deno task orders` shows: the latest orders with their e-mail states, and the dead e-mails. */
import type { SqlSession } from "./sql_database.ts";

/** One order as the report shows it. */
export interface OrderLine {
  order_number: string | null;
  status: string;
  payment_method: string;
  total_amount: string;
  checkout_fee: string;
  final_amount: string;
  created_at: Date | string;
  items: string | null;
  emails: string | null;
}

/** One e-mail that will not be sent automatically any more (its 10th send failed). */
export interface DeadEmailLine {
  outbox_id: string;
  order_number: string | null;
  kind: string;
  failures: number;
  attempts: number;
  last_error: string | null;
  last_tried_at: Date | string;
}

/** What `deno task orders` says of a database without orders (DATABASE_URL, else the local stack's). */
export function describeNoOrders(url: string | undefined): string {
  const where = url ? `the database at DATABASE_URL` : "the local stack's .local/db/";
  return `orders: ${where} has no orders yet: place one with the curl that deno task dev prints, or from ` +
    "its storefront (/storefront/)";
}

/** The latest `limit` orders, newest first, with their items and each e-mail's state. */
export function latestOrders(db: SqlSession, limit: number): Promise<OrderLine[]> {
  return db.query<OrderLine>(
    `select o.order_number, o.status::text, o.payment_method, o.total_amount::text, o.checkout_fee::text,
       o.final_amount::text, o.created_at,
       (select string_agg(i.quantity || ' x ' || i.product_name || coalesce(' (' || i.variant_name || ')', '')
          || ' @ ' || i.unit_price, '; ' order by i.position) from public.order_items i where i.order_id = o.id) as items,
       (select string_agg(e.kind || ': ' || e.status, ', ' order by e.kind) from public.email_outbox e
          where e.order_id = o.id) as emails
     from public.orders o order by o.created_at desc limit $1`,
    [limit],
  );
}

/** Every dead e-mail (newest first, at most `limit`), with its last error: a person decides what next. */
export function deadEmails(db: SqlSession, limit: number): Promise<DeadEmailLine[]> {
  return db.query<DeadEmailLine>(
    `select e.id::text as outbox_id, o.order_number, e.kind, e.failures, e.attempts,
       left(e.last_error, 200) as last_error,
       e.updated_at as last_tried_at
     from public.email_outbox e join public.orders o on o.id = e.order_id
     where e.status = 'dead'
     order by e.updated_at desc, e.id limit $1`,
    [limit],
  );
}
