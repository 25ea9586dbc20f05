/** The OrderStore over supabase-js: one `rpc("create_order")` per order, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { mapDatabaseError } from "./database_errors.ts";
import { internalError } from "../errors.ts";
import type { CreateOrderPayload, CreateOrderResult, OrderStore } from "./order_store.ts";

/** An OrderStore calling create_order through PostgREST, giving up after `timeoutMs`. */
export function supabaseOrderStore(client: DatabaseClient, timeoutMs: number): OrderStore {
  return {
    async createOrder(payload: CreateOrderPayload): Promise<CreateOrderResult> {
      let result;
      try {
        // timeoutMs: create_order rolls back rather than commit after this caller has given up (a 500)
        result = await client.rpc("create_order", { payload: { ...payload, timeoutMs } })
          .abortSignal(AbortSignal.timeout(timeoutMs));
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
