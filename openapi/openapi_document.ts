/**
 * The OpenAPI 3.1 description of the seven functions, built from the zod schemas: the request schemas the
 * functions parse with, the answers of `response_schemas.ts` and the error bodies of `error_schemas.ts`,
 * turned into JSON Schema 2020-12 (OpenAPI 3.1's dialect) by `z.toJSONSchema`; with the examples of
 * `operation_examples.ts` and `error_examples.ts` and the links of `links.ts`. Pure: `deno task openapi`
 * writes it to openapi.json, and a test fails when that file differs from what this builds.
 */
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../supabase/functions/_shared/errors.ts";
import { CreateOrderRequestSchema } from "../supabase/functions/create-order/request_schema.ts";
import { DrainRequestSchema } from "../supabase/functions/outbox-drain/request_schema.ts";
import { RazorpayEventSchema } from "../supabase/functions/_shared/payments/razorpay_webhook.ts";
import { StatusMoveRequestSchema } from "../supabase/functions/update-order-status/request_schema.ts";
import { StartPaymentRequestSchema } from "../supabase/functions/start-payment/request_schema.ts";
import { VerifyPaymentRequestSchema } from "../supabase/functions/verify-payment/request_schema.ts";
import { errorBodySchema, errorSchemaName } from "./error_schemas.ts";
import {
  CreateOrderResponse,
  DrainResponse,
  StartPaymentResponse,
  StatusMoveResponse,
  TrackOrderResponse,
  VerifyPaymentResponse,
  WebhookConfirmationResponse,
  WebhookIgnoredResponse,
  WebhookRefundResponse,
} from "./response_schemas.ts";
import { type FunctionDescription, FUNCTIONS } from "./function_descriptions.ts";
import { errorResponses, header, HEADERS, links } from "./operation_responses.ts";
import { OPERATION_EXAMPLES } from "./operation_examples.ts";

type Json = Record<string, unknown>;

const _ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The named schemas of `components.schemas`: requests, answers and one error body per code. */
function _componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  const named: [string, z.ZodType][] = [
    ["CreateOrderRequest", CreateOrderRequestSchema],
    ["CreateOrderResponse", CreateOrderResponse],
    ["StatusMoveRequest", StatusMoveRequestSchema],
    ["StatusMoveResponse", StatusMoveResponse],
    ["StartPaymentRequest", StartPaymentRequestSchema],
    ["StartPaymentResponse", StartPaymentResponse],
    ["VerifyPaymentRequest", VerifyPaymentRequestSchema],
    ["VerifyPaymentResponse", VerifyPaymentResponse],
    ["RazorpayEvent", RazorpayEventSchema],
    ["WebhookIgnoredResponse", WebhookIgnoredResponse],
    ["WebhookConfirmationResponse", WebhookConfirmationResponse],
    ["WebhookRefundResponse", WebhookRefundResponse],
    ["TrackOrderResponse", TrackOrderResponse],
    ["DrainRequest", DrainRequestSchema],
    ["DrainResponse", DrainResponse],
    ["ErrorCode", z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])],
    ...(Object.keys(ERROR_STATUS) as ErrorCode[]).map((code): [string, z.ZodType] => [
      errorSchemaName(code),
      errorBodySchema(code),
    ]),
  ];
  for (const [id, schema] of named) registry.add(schema, { id });
  // io "input": a request schema is described as what is sent, before its transforms run
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, _sayOpen(_tidy(schema)) as Json]),
  );
}

/**
 * Writes out `additionalProperties: true` where a schema with `properties` says nothing of other
 * properties, which is what JSON Schema means by that silence: Razorpay's event (it carries far more than
 * the webhook reads, which ignores the rest) and the `if`/`then` and `oneOf` parts of a rule between
 * fields, whose object's own `additionalProperties: false` still decides. Linters that read the silence as
 * `false` (Redocly's example check, by default) then judge the examples as Ajv and the functions do.
 */
function _sayOpen(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(_sayOpen);
  if (value === null || typeof value !== "object") return value;
  const schema = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, _sayOpen(inner)]));
  const silent = "properties" in schema && !("additionalProperties" in schema) &&
    !("unevaluatedProperties" in schema);
  return silent ? { ...schema, additionalProperties: true } : schema;
}

/**
 * Drops what the document does not need: each schema's own `$schema` and `$id` (the document's dialect is
 * OpenAPI 3.1's, and a `$id` with a fragment is not valid 2020-12), and the safe-integer bounds zod gives
 * every integer.
 */
function _tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(_tidy);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).filter(([key, inner]) =>
    key !== "$schema" && key !== "$id" &&
    !((key === "maximum" || key === "minimum") && Math.abs(inner as number) === Number.MAX_SAFE_INTEGER)
  );
  return Object.fromEntries(entries.map(([key, inner]) => [key, _tidy(inner)]));
}

function _operation(fn: FunctionDescription, functions: FunctionDescription[]): Json {
  const examples = OPERATION_EXAMPLES[fn.operationId];
  const security = fn.access === "none" ? [] : [{ bearerKey: [] }, { apikey: [] }];
  const operation: Json = {
    operationId: fn.operationId,
    summary: fn.summary,
    description: fn.description,
    security,
  };
  if (fn.parameters.length > 0) {
    operation.parameters = fn.parameters.map((parameter) => {
      const example = examples?.parameters?.[parameter.name as string];
      return example === undefined ? parameter : { ...parameter, example };
    });
  }
  if (fn.request) {
    operation.requestBody = {
      required: fn.request.required,
      content: { "application/json": { schema: _ref(fn.request.schema), examples: examples?.request } },
    };
  }
  const successHeaders: Json = { "x-request-id": header("RequestId") };
  if (fn.replayable) successHeaders["Idempotent-Replayed"] = header("IdempotentReplayed");
  operation.responses = {
    "200": {
      description: fn.successDescription,
      headers: successHeaders,
      content: {
        "application/json": {
          schema: fn.success.length === 1 ? _ref(fn.success[0]) : { oneOf: fn.success.map(_ref) },
          examples: examples?.success,
        },
      },
      links: links(fn, functions),
    },
    ...errorResponses(fn),
  };
  return operation;
}

const _preflight = (fn: FunctionDescription): Json => ({
  operationId: `${fn.operationId}Preflight`,
  summary: "CORS preflight",
  security: [],
  responses: {
    "204": {
      description: "The CORS headers: allowed origin, methods, request headers, and how long to cache them.",
      headers: { "x-request-id": header("RequestId") },
    },
  },
});

/** The whole OpenAPI 3.1 document of `functions` (default: every function of the table). */
export function buildOpenApiDocument(functions: FunctionDescription[] = FUNCTIONS): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "create-order",
      version: "1.0.0",
      description: [
        "The order functions of a store on Supabase: a storefront creates orders (create-order) and shows",
        "a guest its order (track-order), and opens and verifies a gateway payment (start-payment,",
        "verify-payment); the seller moves orders (update-order-status); the payment gateway confirms",
        "payments (payment-webhook); cron drains the e-mail outbox (outbox-drain).",
        "Every answer carries x-request-id. Every failure is `{ success: false, error: { code, message,",
        "details? } }`, `details` typed per code (components.schemas.<Code>Error), and means nothing was",
        "stored. Any method a path does not list (besides OPTIONS) is 405 METHOD_NOT_ALLOWED with `Allow`.",
        "Amounts are decimals in the store's currency (rupees with paise for INR), except start-payment's",
        "`amount`, in paise (minor units) as Razorpay Checkout takes it.",
      ].join(" "),
    },
    servers: [
      {
        url: "https://{projectRef}.supabase.co/functions/v1",
        variables: { projectRef: { default: "your-project-ref" } },
      },
      { url: "http://127.0.0.1:54321/functions/v1", description: "deno task dev" },
    ],
    paths: Object.fromEntries(
      functions.map((fn) => [fn.path, { [fn.method]: _operation(fn, functions), options: _preflight(fn) }]),
    ),
    components: {
      schemas: _componentSchemas(),
      headers: HEADERS,
      securitySchemes: {
        bearerKey: {
          type: "http",
          scheme: "bearer",
          description: "A project key (anon, publishable, service-role or secret; see each operation), or " +
            "with supabase-js a signed-in buyer's access token beside the key in `apikey`.",
        },
        apikey: { type: "apiKey", in: "header", name: "apikey" },
      },
    },
  };
}
