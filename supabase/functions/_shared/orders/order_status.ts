/** The order lifecycle's statuses (spec part 3), in the database enum's order. Pure. */

/** Every status an order can have. */
export const ORDER_STATUSES = [
  "pending",
  "payment_pending",
  "paid",
  "processing",
  "shipped",
  "delivered",
  "cancelled",
] as const;

/** An order's status. */
export type OrderStatus = typeof ORDER_STATUSES[number];
