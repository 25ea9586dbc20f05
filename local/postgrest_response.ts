/** The answers the PostgREST stand-in's routes share: JSON bodies, its own errors, and database errors. */
import { statusForSqlState } from "./postgrest_status.ts";

interface _PostgresErrorLike {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

/** A JSON response with `status`. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}

/** An error of PostgREST's own (a `PGRST…` code), in its error shape. */
export function pgrstError(
  status: number,
  code: string,
  message: string,
  details: string | null = null,
): Response {
  return jsonResponse(status, { code, message, details, hint: null });
}

/**
 * A database error as PostgREST answers it: its SQLSTATE's status (`postgrest_status.ts`) and the error's
 * fields; a driver's own failure (no SQLSTATE: ECONNREFUSED, CONNECTION_ENDED) is 503, out of reach.
 */
export function databaseErrorResponse(error: unknown, role: string): Response {
  const pg = error as _PostgresErrorLike;
  if (!pg.code || !/^[0-9A-Z]{5}$/.test(pg.code)) {
    return pgrstError(503, "PGRST001", "Database client error");
  }
  return jsonResponse(statusForSqlState(pg.code, pg.message ?? "", role !== "anon"), {
    code: pg.code,
    message: pg.message ?? "",
    details: pg.detail ?? null,
    hint: pg.hint ?? null,
  });
}
