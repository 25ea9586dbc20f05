/** The order lifecycle as the tests state it, independently of the SQL that enforces it. */

/** The seven order statuses of spec part 3, in the enum's order. */
export const ORDER_STATUSES = [
  "pending",
  "payment_pending",
  "paid",
  "processing",
  "shipped",
  "delivered",
  "cancelled",
] as const;

/** Spec part 3's moves, plus our reading of pending (pending -> payment_pending | cancelled), as "from>to". */
export const ALLOWED_STATUS_MOVES: ReadonlySet<string> = new Set([
  "pending>payment_pending",
  "pending>cancelled",
  "payment_pending>paid",
  "payment_pending>cancelled",
  "paid>processing",
  "paid>cancelled",
  "processing>shipped",
  "processing>cancelled",
  "shipped>delivered",
]);
