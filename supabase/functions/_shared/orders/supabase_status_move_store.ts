/** The StatusMoveStore over supabase-js: one `rpc("update_order_status")` per move, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { internalError } from "../errors.ts";
import { callDatabase } from "./database_call.ts";
import { ORDER_STATUSES } from "./order_status.ts";
import type { StatusMove, StatusMoveResult, StatusMoveStore } from "./status_move_store.ts";

/**
 * A StatusMoveStore calling update_order_status through PostgREST, under the deadline rule of
 * `callDatabase` (by `clock`).
 */
export function supabaseStatusMoveStore(
  client: DatabaseClient,
  clock: () => Date = () => new Date(),
): StatusMoveStore {
  return {
    async moveOrderStatus(move: StatusMove, { deadline }): Promise<StatusMoveResult> {
      const now = clock();
      const order = "orderId" in move.order
        ? { p_order_id: move.order.orderId }
        : { p_store_id: move.order.storeId, p_order_number: move.order.orderNumber };
      const data = await callDatabase(
        (signal) =>
          client.rpc("update_order_status", {
            p_status: move.status,
            ...order,
            ...(move.note !== null ? { p_note: move.note } : {}),
            ...(move.carrier !== null ? { p_carrier: move.carrier } : {}),
            ...(move.trackingNumber !== null ? { p_tracking_number: move.trackingNumber } : {}),
            ...(move.trackingUrl !== null ? { p_tracking_url: move.trackingUrl } : {}),
            p_deadline: deadline.toISOString(),
          }).abortSignal(signal),
        deadline,
        now,
      );
      if (!_isStatusMoveResult(data)) {
        throw internalError(new Error("update_order_status returned no result"));
      }
      return data;
    },
  };
}

// The shape, not every field: the SQL function builds it, and its own tests pin the fields.
function _isStatusMoveResult(data: unknown): data is StatusMoveResult {
  const result = data as Partial<StatusMoveResult> | null;
  return typeof result === "object" && result !== null && typeof result.changed === "boolean" &&
    typeof result.orderId === "string" && typeof result.orderNumber === "string" &&
    ORDER_STATUSES.includes(result.status as never) && Array.isArray(result.allowed) &&
    Array.isArray(result.emails);
}
