/** The database port of order creation: one call, one transaction (create_order in SQL). */
import type { OrderOutboxEmail } from "../email/order_email.ts";

/** What create_order stores: the validated request with its amounts in minor units. */
export interface CreateOrderPayload {
  storeId: string;
  /** The function's clock; the order's created_at and its year (in its store's time zone) come from it. */
  orderedAt: string;
  buyer: { email: string; name: string; phone: string };
  shippingAddress: Record<string, string | null>;
  paymentMethod: "upi_direct" | "gateway";
  gatewayMethod: "card" | "upi" | "wallet" | null;
  paymentProofUrl: string | null;
  clientIp: string | null;
  /** The signed-in buyer's user id (a verified JWT's `sub`), or null for a guest order. */
  buyerUserId: string | null;
  items: { productId: string; variantId: string | null; quantity: number; unitPriceMinor: number }[];
  totalMinor: number;
  feeMinor: number;
  finalMinor: number;
  idempotency: { key: string; requestHash: string } | null;
  rateLimits: {
    ipLimit: number;
    ipWindowSeconds: number;
    emailLimit: number;
    emailWindowSeconds: number;
  };
}

/** The success body of the contract. */
export interface CreateOrderResponse {
  success: true;
  orderId: string;
  orderNumber: string;
  totalAmount: number;
  checkoutFee: number;
  finalAmount: number;
  status: "payment_pending";
}

/** What create_order returns: the response, whether it is a replay, and the e-mails it claimed. */
export interface CreateOrderResult {
  replayed: boolean;
  response: CreateOrderResponse;
  emails: OrderOutboxEmail[];
}

/** How long the store may take: past `deadline` it gives up, and nothing of the order is stored. */
export interface CreateOrderOptions {
  deadline: Date;
}

/** Stores an order; throws OrderError for the contract's failures, anything else for outages. */
export interface OrderStore {
  createOrder(payload: CreateOrderPayload, options: CreateOrderOptions): Promise<CreateOrderResult>;
}
