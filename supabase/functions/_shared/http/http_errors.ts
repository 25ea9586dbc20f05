/** The one place an error becomes an HTTP response (contract, Failure). */
import { ERROR_STATUS, OrderError } from "../errors.ts";

/** The JSON error body of the contract. */
export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

/**
 * Renders any thrown value. An {@linkcode OrderError} keeps its code, message and details; anything else
 * is INTERNAL_ERROR, and a 5xx body says only "Internal error": the cause goes to the log, never out.
 */
export function renderError(
  error: unknown,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const known = error instanceof OrderError ? error : undefined;
  const code = known?.code ?? "INTERNAL_ERROR";
  const status = ERROR_STATUS[code];
  if (status >= 500) {
    return { status, body: { success: false, error: { code, message: "Internal error" } }, headers: {} };
  }
  const body: ErrorBody = { success: false, error: { code, message: known!.message } };
  if (known!.details !== undefined) body.error.details = known!.details;
  return { status, body, headers: known!.headers ?? {} };
}
