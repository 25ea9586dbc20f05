/**
 * The parts of an operation's answers that openapi_document.ts assembles: the headers they carry, the
 * error responses by status (one body schema and one example per code), and the links of a 200.
 */
import { ERROR_STATUS, type ErrorCode } from "../supabase/functions/_shared/errors.ts";
import { errorSchemaName } from "./error_schemas.ts";
import { ERROR_EXAMPLES, errorExampleBody } from "./error_examples.ts";
import type { FunctionDescription } from "./function_descriptions.ts";
import { FOLLOW_UPS } from "./links.ts";
import { OPERATION_EXAMPLES } from "./operation_examples.ts";

type Json = Record<string, unknown>;

const _ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The headers the answers carry, as `components.headers`. */
export const HEADERS: Record<string, Json> = {
  RequestId: {
    description: "The request's id, also in the function's log line: quote it when reporting a problem.",
    schema: { type: "string" },
  },
  RetryAfter: {
    description: "Seconds to wait before the next order from this client or e-mail address.",
    schema: { type: "integer", minimum: 1 },
  },
  IdempotentReplayed: {
    description: "`true` when this is the first answer to the same Idempotency-Key and body, given again.",
    schema: { type: "string", enum: ["true"] },
  },
  WwwAuthenticate: { schema: { type: "string", enum: ["Bearer"] } },
};

/** A reference to one of {@linkcode HEADERS}. */
export const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The named examples of each of `codes` for `fn`: its own where it has one, else the code's. */
function _errorExamples(fn: FunctionDescription, codes: ErrorCode[]): Json {
  const examples: Json = {};
  for (const code of codes) {
    const example = OPERATION_EXAMPLES[fn.operationId]?.errors?.[code] ?? ERROR_EXAMPLES[code];
    if (example) examples[code] = { summary: example.summary, value: errorExampleBody(code, example) };
  }
  return examples;
}

/** `fn`'s error responses by status: each code's body schema and example, and the headers they carry. */
export function errorResponses(fn: FunctionDescription): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of fn.errors) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => {
      const schema = codes.length === 1
        ? _ref(errorSchemaName(codes[0]))
        : { oneOf: codes.map((code) => _ref(errorSchemaName(code))) };
      const headers: Json = { "x-request-id": header("RequestId") };
      if (codes.includes("RATE_LIMITED")) headers["Retry-After"] = header("RetryAfter");
      // the frame's key check sends the challenge; a function that checks a signature instead does not
      if (codes.includes("UNAUTHORIZED") && fn.access !== "none") {
        headers["WWW-Authenticate"] = header("WwwAuthenticate");
      }
      return [String(status), {
        description: codes.map((code) => fn.errorWhen[code] ? `${code}: ${fn.errorWhen[code]}` : code)
          .join("; "),
        headers,
        content: { "application/json": { schema, examples: _errorExamples(fn, codes) } },
      }];
    }),
  );
}

/** The links of `fn`'s 200 to the operations of `functions` its answer leads to. */
export function links(fn: FunctionDescription, functions: FunctionDescription[]): Json | undefined {
  const links: Json = {};
  for (const followUp of FOLLOW_UPS.filter((link) => link.from === fn.operationId)) {
    const target = functions.find((other) => other.path === followUp.to);
    if (!target) continue;
    links[followUp.name] = {
      operationId: target.operationId,
      description: followUp.description,
      ...(followUp.parameters ? { parameters: followUp.parameters } : {}),
      ...(followUp.requestBody ? { requestBody: followUp.requestBody } : {}),
    };
  }
  return Object.keys(links).length > 0 ? links : undefined;
}
