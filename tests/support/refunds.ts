/** Reading the refunds an order's payments and cancellations wrote, for the refunds' tests. */
import type { SqlDatabase } from "../../local/sql_database.ts";

/** One refund of an order, with the payment it returns (null for a `manual` refund of money the gateway never saw). */
export interface RefundRow {
  id: string;
  provider_payment_id: string | null;
  outcome: string | null;
  amount: string;
  currency: string;
  status: string;
  provider_refund_id: string | null;
  attempts: number;
}

/** An order's refunds, oldest first. */
export function refundRows(db: SqlDatabase, orderId: string): Promise<RefundRow[]> {
  return db.query<RefundRow>(
    `select r.id, p.provider_payment_id, p.outcome, r.amount::text, r.currency, r.status, r.provider_refund_id,
       r.attempts
     from public.refunds r left join public.payments p on p.id = r.payment_id
     where r.order_id = $1 order by r.created_at, r.id`,
    [orderId],
  );
}
