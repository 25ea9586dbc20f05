/**
 * openapi.json: generated from the zod schemas, committed, valid OpenAPI 3.1, and the yardstick every
 * end-to-end answer is checked against (`startTestStack`, `tests/support/openapi_check.ts`).
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_STATUS, type ErrorCode } from "../supabase/functions/_shared/errors.ts";
import { renderError } from "../supabase/functions/_shared/http/http_errors.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import { openApiJson } from "../openapi/openapi_json.ts";
import { errorSchemaName } from "../openapi/error_schemas.ts";
import { FUNCTIONS } from "../openapi/function_descriptions.ts";
import { openApiMismatch } from "./support/openapi_check.ts";

const committed = await Deno.readTextFile(new URL("../openapi.json", import.meta.url));
const document = JSON.parse(committed);

Deno.test("openapi.json is what `deno task openapi` writes from the zod schemas (run it after a change)", () => {
  assert.equal(committed, openApiJson());
});

Deno.test("openapi.json is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  assert.deepEqual(result, { valid: true });
  assert.equal(validator.version, "3.1");
});

Deno.test("the OpenAPI validator refuses a document that breaks the 3.1 schema, so the test above can fail", async () => {
  const broken = structuredClone(document);
  broken.paths["/create-order"].post.responses["200"] = { content: {} }; // a response needs a description
  const result = await new Validator().validate(broken);
  assert.equal(result.valid, false);
});

Deno.test("openapi.json describes every function with an operation and a CORS preflight", () => {
  assert.deepEqual(Object.keys(document.paths).sort(), [
    "/create-order",
    "/outbox-drain",
    "/payment-webhook",
    "/start-payment",
    "/track-order",
    "/update-order-status",
    "/verify-payment",
  ]);
  for (const fn of FUNCTIONS) {
    assert.ok(document.paths[fn.path][fn.method], `${fn.method} ${fn.path}`);
    assert.ok(document.paths[fn.path].options.responses["204"], `OPTIONS ${fn.path}`);
  }
});

Deno.test("openapi.json answers each error code under the contract's status, with one body schema per code", () => {
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    const schema = document.components.schemas[errorSchemaName(code)];
    assert.equal(schema.properties.error.properties.code.const, code);
  }
  for (const fn of FUNCTIONS) {
    const responses = document.paths[fn.path][fn.method].responses;
    for (const code of fn.errors) {
      const body = responses[String(ERROR_STATUS[code])].content["application/json"].schema;
      const refs: string[] = body.oneOf ? body.oneOf.map((ref: { $ref: string }) => ref.$ref) : [body.$ref];
      assert.ok(refs.includes(`#/components/schemas/${errorSchemaName(code)}`), `${fn.path} ${code}`);
    }
  }
});

Deno.test("openApiMismatch() holds an answer to its code's details: PRICE_MISMATCH needs its prices", () => {
  const priceMismatch = {
    success: false,
    error: {
      code: "PRICE_MISMATCH",
      message: "An item's price differs from the current catalogue price",
      details: [{
        index: 0,
        productId: "aaaaaaaa-0001-4000-8000-000000000001",
        variantId: null,
        price: 349,
        submittedPrice: 300,
      }],
    },
  };
  assert.equal(openApiMismatch("/create-order", "POST", 400, priceMismatch), null);
  const withoutPrices = structuredClone(priceMismatch);
  delete (withoutPrices.error as { details?: unknown }).details;
  assert.match(openApiMismatch("/create-order", "POST", 400, withoutPrices) ?? "", /does not match/);
  // a code another status owns, an unlisted status and an undocumented field are all caught
  assert.match(openApiMismatch("/create-order", "POST", 409, priceMismatch) ?? "", /does not match/);
  assert.match(openApiMismatch("/track-order", "GET", 401, priceMismatch) ?? "", /does not list/);
  assert.match(
    openApiMismatch("/create-order", "POST", 400, { ...priceMismatch, extra: 1 }) ?? "",
    /does not match/,
  );
});

Deno.test("openApiMismatch() takes the renderer's 500 body and a 405 for an undocumented method", () => {
  const internal = renderError(new Error("database is down"));
  assert.equal(openApiMismatch("/create-order", "POST", internal.status, internal.body), null);
  const notAllowed = renderError(new OrderError("METHOD_NOT_ALLOWED", "Only POST, OPTIONS are allowed"));
  assert.equal(openApiMismatch("/create-order", "GET", notAllowed.status, notAllowed.body), null);
  assert.match(openApiMismatch("/create-order", "GET", 200, {}) ?? "", /must be 405/);
});
