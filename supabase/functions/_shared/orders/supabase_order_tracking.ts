/** The OrderTracking port over supabase-js: one `rpc("order_tracking")`, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { internalError } from "../errors.ts";
import type { OrderTracking, TrackedOrder } from "./order_tracking.ts";

/**
 * An OrderTracking calling `order_tracking` through PostgREST, giving up after `timeoutMs`. Only the
 * fields of {@linkcode TrackedOrder} are passed on, whatever else the database might return.
 */
export function supabaseOrderTracking(client: DatabaseClient, timeoutMs: number): OrderTracking {
  return {
    async trackOrder(orderId: string): Promise<TrackedOrder | null> {
      let result;
      try {
        result = await client.rpc("order_tracking", { p_order_id: orderId })
          .abortSignal(AbortSignal.timeout(timeoutMs));
      } catch (error) {
        throw internalError(error);
      }
      if (result.error) throw internalError(result.error);
      if (result.data === null) return null;
      return _trackedOrder(result.data);
    },
  };
}

function _trackedOrder(data: unknown): TrackedOrder {
  const o = data as TrackedOrder;
  if (typeof o !== "object" || !Array.isArray(o.items) || !Array.isArray(o.history)) {
    throw internalError(new Error("order_tracking returned no order"));
  }
  return {
    orderId: o.orderId,
    orderNumber: o.orderNumber,
    status: o.status,
    createdAt: o.createdAt,
    storeName: o.storeName,
    timeZone: o.timeZone,
    currency: o.currency,
    paymentMethod: o.paymentMethod,
    gatewayMethod: o.gatewayMethod,
    items: o.items.map((i) => ({
      productName: i.productName,
      variantName: i.variantName,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      lineTotal: i.lineTotal,
    })),
    totalAmount: o.totalAmount,
    checkoutFee: o.checkoutFee,
    finalAmount: o.finalAmount,
    history: o.history.map((h) => ({ status: h.status, at: h.at })),
    shipment: o.shipment
      ? {
        carrier: o.shipment.carrier,
        trackingNumber: o.shipment.trackingNumber,
        trackingUrl: o.shipment.trackingUrl,
      }
      : null,
  };
}
