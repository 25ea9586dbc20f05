/** The one place an error becomes an HTTP response (contract, Failure). */
import { ERROR_STATUS, type ErrorCode, OrderError } from "../errors.ts";

/** The JSON error body of the contract. */
export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

/**
 * The one sentence each 5xx code answers with, whatever message or cause its error carries: a failure's cause
 * (a database's text, a provider's answer) goes to the log, never out.
 */
const SERVER_ERROR_MESSAGES = {
  INTERNAL_ERROR: "Internal error",
  PAYMENT_PROVIDER_ERROR:
    "The payment provider answered an error or did not answer in time; nothing was kept",
  PAYMENT_PROVIDER_NOT_CONFIGURED: "Payments through the gateway are not configured for this store",
} as const satisfies Partial<Record<ErrorCode, string>>;

/**
 * Renders any thrown value. An {@linkcode OrderError} keeps its code, message and details; anything else
 * is INTERNAL_ERROR, and a 5xx body says only its code's fixed sentence ("Internal error"): the cause goes to
 * the log, never out.
 */
export function renderError(
  error: unknown,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const known = error instanceof OrderError ? error : undefined;
  const code = known?.code ?? "INTERNAL_ERROR";
  const status = ERROR_STATUS[code];
  if (status >= 500) {
    const message = SERVER_ERROR_MESSAGES[code as keyof typeof SERVER_ERROR_MESSAGES] ?? "Internal error";
    return { status, body: { success: false, error: { code, message } }, headers: {} };
  }
  const body: ErrorBody = { success: false, error: { code, message: known!.message } };
  if (known!.details !== undefined) body.error.details = known!.details;
  return { status, body, headers: known!.headers ?? {} };
}
