/** A payment request's zod failure as the contract's VALIDATION_FAILED, every issue at its path. */
import type { z } from "../zod.ts";
import { type FieldIssue, OrderError } from "../errors.ts";

/** VALIDATION_FAILED with one `{ path, message }` per issue (an unknown field: "unknown field"). */
export function validationFailed(error: z.ZodError): OrderError {
  return new OrderError("VALIDATION_FAILED", "The request body is invalid", {
    details: error.issues.flatMap((issue): FieldIssue[] =>
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => ({ path: [...issue.path, key].join("."), message: "unknown field" }))
        : [{ path: issue.path.join("."), message: issue.message }]
    ),
  });
}
