/** One database call through supabase-js with a time limit, unwrapped into data or our error. */
import { internalError } from "../errors.ts";
import { type DatabaseErrorLike, mapDatabaseError } from "./database_errors.ts";

/** What a supabase-js request resolves to. */
export interface DatabaseAnswer {
  data: unknown;
  error: DatabaseErrorLike | null;
}

/**
 * Runs `request` with an abort signal that fires after `timeoutMs`; returns its data. A failure our SQL
 * raised on purpose becomes its contract error (by SQLSTATE); a network failure, an abort (no SQLSTATE)
 * or anything else becomes INTERNAL_ERROR, keeping the cause for the log.
 */
export async function callDatabase(
  request: (signal: AbortSignal) => PromiseLike<DatabaseAnswer>,
  timeoutMs: number,
): Promise<unknown> {
  let result: DatabaseAnswer;
  try {
    result = await request(AbortSignal.timeout(Math.max(0, timeoutMs)));
  } catch (error) {
    throw internalError(error);
  }
  if (result.error) {
    throw result.error.code ? mapDatabaseError(result.error) : internalError(result.error);
  }
  return result.data;
}
