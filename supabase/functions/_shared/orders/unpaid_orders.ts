/**
 * Orders nobody paid, cancelled after a time by the outbox drain's run: `cancel_unpaid_orders` (its
 * migration) moves each one to `cancelled` as the system, restocks it and claims the buyer's e-mail; this
 * is its port and supabase-js adapter.
 */
import type { DatabaseClient } from "../database_client.ts";
import type { OutboxEmail } from "../email/order_email.ts";
import { internalError } from "../errors.ts";
import { callDatabase } from "./database_call.ts";

/** How long an order may stay unpaid, per payment method; 0 turns a method's cancellation off. */
export interface UnpaidOrderWindows {
  /** UNPAID_GATEWAY_ORDER_MINUTES: a gateway order's buyer left Razorpay Checkout. */
  gatewayMinutes: number;
  /** UNPAID_UPI_DIRECT_ORDER_HOURS: the seller never confirmed the transfer. */
  upiDirectHours: number;
}

/** An unpaid order a call cancelled, or left for a later run. */
export interface UnpaidOrder {
  orderId: string;
  orderNumber: string;
  paymentMethod: "gateway" | "upi_direct";
}

/**
 * What one call cancelled, the buyers' `cancelled` e-mails it claimed for sending, and the orders due that it
 * left for a later run because a lock they need was busy (the call never waits for one).
 */
export interface UnpaidOrdersCancelled {
  cancelled: UnpaidOrder[];
  emails: OutboxEmail[];
  skipped: UnpaidOrder[];
}

/** Cancels what is due; throws an OrderError (INTERNAL_ERROR) when the database fails. */
export type CancelUnpaidOrders = () => Promise<UnpaidOrdersCancelled>;

/** Orders one run cancels at most; a longer backlog is the next run's. */
export const UNPAID_ORDERS_PER_RUN = 100;

/** `cancel_unpaid_orders` through PostgREST rpc, with the deadline rule of the other calls. */
export function supabaseCancelUnpaidOrders(
  client: DatabaseClient,
  windows: UnpaidOrderWindows,
  timeoutMs: number,
  clock: () => Date = () => new Date(),
): CancelUnpaidOrders {
  return async () => {
    const now = clock();
    const deadline = new Date(now.getTime() + timeoutMs);
    const data = await callDatabase(
      (signal) =>
        client.rpc("cancel_unpaid_orders", {
          p_gateway_minutes: windows.gatewayMinutes,
          p_upi_direct_hours: windows.upiDirectHours,
          p_limit: UNPAID_ORDERS_PER_RUN,
          p_deadline: deadline.toISOString(),
        }).abortSignal(signal),
      deadline,
      now,
    );
    const result = data as Partial<UnpaidOrdersCancelled> | null;
    if (
      !Array.isArray(result?.cancelled) || !Array.isArray(result.emails) || !Array.isArray(result.skipped)
    ) {
      throw internalError(new Error("cancel_unpaid_orders returned no result"));
    }
    return { cancelled: result.cancelled, emails: result.emails, skipped: result.skipped };
  };
}
