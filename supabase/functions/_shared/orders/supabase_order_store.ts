/** The OrderStore over supabase-js: one `rpc("create_order")` per order, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { callDatabase } from "./database_call.ts";
import { internalError } from "../errors.ts";
import type { CreateOrderOptions, CreateOrderPayload, CreateOrderResult, OrderStore } from "./order_store.ts";
import { retryWhileStoreBusy, type StoreBusyRetryOptions } from "./store_busy_retry.ts";

/**
 * An OrderStore calling create_order through PostgREST. create_order receives the call's absolute deadline
 * and rolls back rather than commit after it, however long the call queued for a connection first;
 * supabase-js gives up `ANSWER_GRACE_MS` (database_call.ts) after it (by `clock`, the handler's clock).
 * A call refused because its store has K orders in the database already (STORE_BUSY) is made again after
 * a short pause, holding no connection meanwhile, until the deadline (store_busy_retry.ts); `retry` lets a
 * test hand in its own sleep and random source.
 */
export function supabaseOrderStore(
  client: DatabaseClient,
  clock: () => Date = () => new Date(),
  retry: Pick<StoreBusyRetryOptions, "sleep" | "random"> = {},
): OrderStore {
  return {
    async createOrder(
      payload: CreateOrderPayload,
      { deadline }: CreateOrderOptions,
    ): Promise<CreateOrderResult> {
      const data = await retryWhileStoreBusy(
        () =>
          callDatabase(
            (signal) =>
              client.rpc("create_order", { payload: { ...payload, deadline: deadline.toISOString() } })
                .abortSignal(signal),
            deadline,
            clock(),
          ),
        { deadline, clock, ...retry },
      );
      if (!_isCreateOrderResult(data)) throw internalError(new Error("create_order returned no result"));
      return data;
    },
  };
}

// The shape, not every field: create_order builds it, and the database's own tests pin its fields.
function _isCreateOrderResult(data: unknown): data is CreateOrderResult {
  const result = data as Partial<CreateOrderResult> | null;
  return typeof result === "object" && result !== null && typeof result.replayed === "boolean" &&
    typeof result.response === "object" && result.response !== null && Array.isArray(result.emails);
}
