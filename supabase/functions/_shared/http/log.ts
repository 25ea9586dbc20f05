/** Structured logs: one JSON line per event. Callers pass ids, codes and figures, never personal data or keys. */

/** Writes one event. */
export type Logger = (event: Record<string, unknown>) => void;

/** A logger writing JSON lines to `write` (console.log by default). */
export function jsonLogger(write: (line: string) => void = console.log): Logger {
  return (event) => write(JSON.stringify({ at: new Date().toISOString(), ...event }));
}

/** A short description of an error for a log line: its name, code and message, never its stack. */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) {
    // supabase-js reports failures as plain { message, code, details } objects, not Errors
    const plain = error as { message?: unknown; code?: unknown } | null;
    if (typeof plain?.message !== "string") return { error: String(error) };
    return { error: "Error", ...(plain.code ? { errorCode: plain.code } : {}), message: plain.message };
  }
  const cause = error.cause === undefined ? undefined : describeError(error.cause);
  const code = (error as { code?: unknown }).code;
  return {
    error: error.name,
    ...(code ? { errorCode: code } : {}),
    message: error.message,
    ...(cause ? { cause } : {}),
  };
}
