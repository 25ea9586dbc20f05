/**
 * One database call through supabase-js under a deadline, unwrapped into data or our error. Every SQL
 * function that writes (create_order, update_order_status, confirm_payment, cancel_unpaid_orders) receives
 * the call's absolute deadline and rolls back rather than finish after it, however long the call queued for
 * a connection.
 */
import { internalError } from "../errors.ts";
import { type DatabaseErrorLike, mapDatabaseError } from "./database_errors.ts";

/**
 * How long after the deadline a call still waits for its answer. The SQL is done by the deadline or rolls
 * back; an answer that left the database in time but travels slowly (a busy network, a busy event loop)
 * still arrives, so a change is never stored after its caller was answered 500 unless its commit and
 * answer take longer than this.
 */
export const ANSWER_GRACE_MS = 2_000;

/** What a supabase-js request resolves to. */
export interface DatabaseAnswer {
  data: unknown;
  error: DatabaseErrorLike | null;
}

/**
 * Runs `request` with an abort signal that fires {@linkcode ANSWER_GRACE_MS} after `deadline` (measured
 * from `now`); returns its data. A failure our SQL raised on purpose becomes its contract error (by
 * SQLSTATE); a network failure, an abort (no SQLSTATE) or anything else becomes INTERNAL_ERROR, keeping the
 * cause for the log.
 */
export async function callDatabase(
  request: (signal: AbortSignal) => PromiseLike<DatabaseAnswer>,
  deadline: Date,
  now: Date,
): Promise<unknown> {
  let result: DatabaseAnswer;
  try {
    result = await request(
      AbortSignal.timeout(Math.max(0, deadline.getTime() - now.getTime()) + ANSWER_GRACE_MS),
    );
  } catch (error) {
    throw internalError(error);
  }
  if (result.error) {
    // supabase-js reports a network failure or an abort as an error with no SQLSTATE
    throw result.error.code ? mapDatabaseError(result.error) : internalError(result.error);
  }
  return result.data;
}
