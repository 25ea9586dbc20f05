/** The OrderStore over supabase-js: one `rpc("create_order")` per order, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { mapDatabaseError } from "./database_errors.ts";
import { internalError } from "../errors.ts";
import type { CreateOrderOptions, CreateOrderPayload, CreateOrderResult, OrderStore } from "./order_store.ts";

/** The most of the time left that is kept back for the commit and the answer's way back (ms). */
export const COMMIT_RESERVE_MS = 500;

/**
 * When create_order must have finished for its answer to arrive before `deadline`: a fifth of the time
 * left is kept back for the commit and the trip back, at most {@linkcode COMMIT_RESERVE_MS}.
 */
export function commitDeadline(deadline: Date, now: Date): Date {
  const left = Math.max(0, deadline.getTime() - now.getTime());
  return new Date(deadline.getTime() - Math.min(COMMIT_RESERVE_MS, Math.floor(left / 5)));
}

/**
 * An OrderStore calling create_order through PostgREST. supabase-js gives up at the call's deadline (by
 * `clock`, the handler's clock), and create_order receives an absolute deadline a little earlier
 * ({@linkcode commitDeadline}): it rolls back rather than commit after it, however long the call queued
 * for a connection first, so no order is stored after its buyer was answered 500.
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
          payload: { ...payload, deadline: commitDeadline(deadline, now).toISOString() },
        }).abortSignal(AbortSignal.timeout(Math.max(0, deadline.getTime() - now.getTime())));
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
