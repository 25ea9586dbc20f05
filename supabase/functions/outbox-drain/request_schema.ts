/**
 * The outbox-drain request: an empty body or a JSON object with the same two knobs as `deno task outbox`
 * (`--min-age`, `--stale-after`). pg_cron's job posts `{}`: the defaults.
 */
import { z } from "../_shared/zod.ts";
import type { DrainOptions } from "../_shared/email/outbox_drain.ts";
import { type FieldIssue, OrderError } from "../_shared/errors.ts";
import { parseJson } from "../_shared/http/request_body.ts";

const _Seconds = z.int().min(0).max(86_400);

/** Strict: an unknown field is refused, so a typo never silently drains with the defaults. */
export const DrainRequestSchema = z.strictObject({
  /** Pending and failed rows are due this long after they were written or last tried (default 60). */
  minAgeSeconds: _Seconds.optional(),
  /** A row the request path claimed and left `sending` this long belongs to a sender that died (default 300). */
  staleAfterSeconds: _Seconds.optional(),
});

/** Parses the body text into drain options, or throws INVALID_JSON / VALIDATION_FAILED. */
export function parseDrainRequest(bodyText: string): DrainOptions {
  const result = DrainRequestSchema.safeParse(bodyText.trim() === "" ? {} : parseJson(bodyText));
  if (!result.success) {
    throw new OrderError("VALIDATION_FAILED", "The request body is invalid", {
      details: result.error.issues.flatMap((issue): FieldIssue[] =>
        issue.code === "unrecognized_keys"
          ? issue.keys.map((key) => ({ path: [...issue.path, key].join("."), message: "unknown field" }))
          : [{ path: issue.path.join("."), message: issue.message }]
      ),
    });
  }
  return result.data;
}
