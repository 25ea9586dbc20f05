/**
 * The payment orders port: what start-payment and verify-payment read and keep in the database
 * (`begin_payment` and `keep_provider_order` in SQL). Amounts in minor units, as the provider takes them.
 */
import type { OrderStatus } from "../orders/order_status.ts";

/** An order's payment facts: enough to open its payment and check what a payment reports. */
export interface PaymentFacts {
  orderId: string;
  orderNumber: string;
  storeId: string;
  storeName: string;
  status: OrderStatus;
  paymentMethod: "upi_direct" | "gateway";
  /** The gateway sub-method the order was priced with; null for upi_direct. */
  gatewayMethod: "card" | "upi" | "wallet" | null;
  finalAmountMinor: number;
  currency: string;
}

/** The provider order kept for an order: the one Checkout opens, whoever asks again. */
export interface KeptProviderOrder {
  provider: string;
  providerOrderId: string;
  amountMinor: number;
  currency: string;
}

/** What a payment step starts from: the order (null when there is none) and its kept provider order. */
export interface PaymentStart {
  order: PaymentFacts | null;
  providerOrder: KeptProviderOrder | null;
}

/** Reads and keeps payment orders; throws OrderError (RATE_LIMITED, ORDER_NOT_PAYABLE, INTERNAL_ERROR...). */
export interface PaymentOrders {
  /**
   * Counts the call against the client's per-IP limit (RATE_LIMITED past it; a limit of 0 is off), then
   * reads the order and its kept provider order.
   */
  beginPayment(
    orderId: string,
    options: { clientIp: string | null; rateLimit: { limit: number; windowSeconds: number }; deadline: Date },
  ): Promise<PaymentStart>;
  /**
   * Keeps `providerOrder` for the order unless one is kept already, and answers the kept one. Throws
   * ORDER_NOT_PAYABLE when the order no longer awaits a gateway payment.
   */
  keepProviderOrder(
    orderId: string,
    providerOrder: KeptProviderOrder,
    options: { deadline: Date },
  ): Promise<KeptProviderOrder>;
}

/**
 * The smallest amount Razorpay takes for an order: 100 of the currency's subunits (₹1.00); it refuses
 * `POST /v1/orders` below it. A gateway order below it (a ₹0 item, say) cannot be paid.
 */
export const GATEWAY_MINIMUM_MINOR = 100;

/** Whether the gateway may take a payment for the order now: a gateway order awaiting its payment. */
export function isPayable(order: Pick<PaymentFacts, "status" | "paymentMethod">): boolean {
  return order.paymentMethod === "gateway" && order.status === "payment_pending";
}
