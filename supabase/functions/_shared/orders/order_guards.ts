/**
 * The order guards that expire: idempotency keys (kept 7 days, never under 24 hours) and rate-limit windows
 * (kept 2 days). `purge_expired_order_guards` in the housekeeping migration removes them; this is its port
 * and supabase-js adapter.
 */
import { internalError } from "../errors.ts";
import type { DatabaseClient } from "../database_client.ts";

/** How many expired rows a purge removed. */
export interface PurgeCounts {
  idempotencyKeys: number;
  rateLimitWindows: number;
}

/** Removes expired guards; throws an OrderError (INTERNAL_ERROR) when the database fails. */
export type PurgeExpiredGuards = () => Promise<PurgeCounts>;

/** `purge_expired_order_guards` through PostgREST rpc, giving up after `timeoutMs`. */
export function supabasePurgeExpiredGuards(client: DatabaseClient, timeoutMs = 10_000): PurgeExpiredGuards {
  return async () => {
    let result;
    try {
      result = await client.rpc("purge_expired_order_guards", {}).abortSignal(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw internalError(error, "purge_expired_order_guards failed");
    }
    if (result.error) throw internalError(result.error, "purge_expired_order_guards failed");
    const counts = result.data as Partial<PurgeCounts> | null;
    if (typeof counts?.idempotencyKeys !== "number" || typeof counts.rateLimitWindows !== "number") {
      throw internalError(new Error("purge_expired_order_guards returned no counts"));
    }
    return { idempotencyKeys: counts.idempotencyKeys, rateLimitWindows: counts.rateLimitWindows };
  };
}
