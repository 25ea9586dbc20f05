/** The database port of status moves: one call, one transaction (update_order_status in SQL). */
import type { OutboxEmail } from "../email/order_email.ts";
import type { RefundCreated } from "../payments/payment_confirmation.ts";
import type { OrderStatus } from "./order_status.ts";

/** Which order: by its id, or by its store and number. */
export type OrderRef = { orderId: string } | { storeId: string; orderNumber: string };

/** A seller's move of one order, validated. */
export interface StatusMove {
  order: OrderRef;
  status: OrderStatus;
  /** Required to cancel: the reason. */
  note: string | null;
  /** Only with `shipped`. */
  carrier: string | null;
  trackingNumber: string | null;
  /** An http(s) URL's serialisation. */
  trackingUrl: string | null;
}

/** What a move did: `changed` is false when the order already had the status (nothing written). */
export interface StatusMoveResult {
  changed: boolean;
  orderId: string;
  orderNumber: string;
  status: OrderStatus;
  /** The moves allowed from `status`. */
  allowed: OrderStatus[];
  /** The buyer's status e-mail, claimed for sending (none for a no-op or a status without one). */
  emails: OutboxEmail[];
  /**
   * The refund this move created: a cancellation of an order a payment had paid (`pending`, issued through
   * the gateway), or of a upi_direct order the seller had confirmed paid (`manual`). Absent otherwise.
   */
  refund?: RefundCreated;
}

/** Moves orders; throws OrderError for the contract's failures (ORDER_NOT_FOUND, INVALID_TRANSITION, ...). */
export interface StatusMoveStore {
  /** Past `deadline` the store gives up, and nothing of the move is stored. */
  moveOrderStatus(move: StatusMove, options: { deadline: Date }): Promise<StatusMoveResult>;
}
