/** The PaymentOrders port over supabase-js: `begin_payment` and `keep_provider_order`, unwrapped. */
import type { DatabaseClient } from "../database_client.ts";
import { internalError, OrderError } from "../errors.ts";
import { callDatabase } from "../orders/database_call.ts";
import type { KeptProviderOrder, PaymentOrders, PaymentStart } from "./payment_orders.ts";

/** PaymentOrders calling the SQL functions through PostgREST, with the deadline rule of the other calls. */
export function supabasePaymentOrders(
  client: DatabaseClient,
  clock: () => Date = () => new Date(),
): PaymentOrders {
  return {
    async beginPayment(orderId, { clientIp, rateLimit, deadline }): Promise<PaymentStart> {
      const data = await callDatabase(
        (signal) =>
          client.rpc("begin_payment", {
            p_order_id: orderId,
            // "" when the IP is unknown: the call is then not counted
            p_client_ip: clientIp ?? "",
            p_ip_limit: rateLimit.limit,
            p_ip_window_seconds: rateLimit.windowSeconds,
            p_deadline: deadline.toISOString(),
          }).abortSignal(signal),
        deadline,
        clock(),
      ).catch((error) => {
        // the database's RATE_LIMITED speaks of orders: these are payment calls
        if (!(error instanceof OrderError) || error.code !== "RATE_LIMITED") throw error;
        throw new OrderError("RATE_LIMITED", "Too many payment calls from this client; retry later", {
          headers: error.headers,
        });
      });
      const start = data as Partial<PaymentStart> | null;
      if (typeof start !== "object" || start === null || !("order" in start)) {
        throw internalError(new Error("begin_payment returned no result"));
      }
      return { order: start.order ?? null, providerOrder: start.providerOrder ?? null };
    },

    async keepProviderOrder(orderId, providerOrder, { deadline }): Promise<KeptProviderOrder> {
      const data = await callDatabase(
        (signal) =>
          client.rpc("keep_provider_order", {
            p_order_id: orderId,
            p_provider: providerOrder.provider,
            p_provider_order_id: providerOrder.providerOrderId,
            p_amount_minor: providerOrder.amountMinor,
            p_currency: providerOrder.currency,
            p_deadline: deadline.toISOString(),
          }).abortSignal(signal),
        deadline,
        clock(),
      );
      const kept = data as Partial<KeptProviderOrder> | null;
      if (typeof kept?.providerOrderId !== "string") {
        throw internalError(new Error("keep_provider_order returned no provider order"));
      }
      return kept as KeptProviderOrder;
    },
  };
}
