/** The OrderStore over supabase-js: one `rpc("create_order")` per order, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { mapDatabaseError } from "./database_errors.ts";
import { internalError } from "../errors.ts";
import type { CreateOrderOptions, CreateOrderPayload, CreateOrderResult, OrderStore } from "./order_store.ts";

/**
 * How long after the deadline the adapter still waits for create_order's answer. create_order itself is
 * done by the deadline or rolls back; an answer that left the database in time but travels slowly (a busy
 * network, a busy event loop) still arrives, so an order is never stored after its buyer was answered 500
 * unless its commit and answer take longer than this.
 */
export const ANSWER_GRACE_MS = 2_000;

/**
 * An OrderStore calling create_order through PostgREST. create_order receives the call's absolute deadline
 * and rolls back rather than commit after it, however long the call queued for a connection first;
 * supabase-js gives up {@linkcode ANSWER_GRACE_MS} after it (by `clock`, the handler's clock).
 */
export function supabaseOrderStore(client: DatabaseClient, clock: () => Date = () => new Date()): OrderStore {
  return {
    async createOrder(
      payload: CreateOrderPayload,
      { deadline }: CreateOrderOptions,
    ): Promise<CreateOrderResult> {
      const now = clock();
      let result;
      try {
        result = await client.rpc("create_order", {
          payload: { ...payload, deadline: deadline.toISOString() },
        }).abortSignal(
          AbortSignal.timeout(Math.max(0, deadline.getTime() - now.getTime()) + ANSWER_GRACE_MS),
        );
      } catch (error) {
        throw internalError(error);
      }
      if (result.error) {
        // supabase-js reports a network failure or an abort as an error with no SQLSTATE
        throw result.error.code ? mapDatabaseError(result.error) : internalError(result.error);
      }
      if (!_isCreateOrderResult(result.data)) {
        throw internalError(new Error("create_order returned no result"));
      }
      return result.data;
    },
  };
}

// The shape, not every field: create_order builds it, and the database's own tests pin its fields.
function _isCreateOrderResult(data: unknown): data is CreateOrderResult {
  const result = data as Partial<CreateOrderResult> | null;
  return typeof result === "object" && result !== null && typeof result.replayed === "boolean" &&
    typeof result.response === "object" && result.response !== null && Array.isArray(result.emails);
}
