/**
 * openapi.json's examples and links: every operation shows a request (when it reads one) and an answer,
 * and an example of every error code it answers, each valid under the schema beside it; create-order's
 * answer links to the calls it leads to.
 */
import assert from "node:assert/strict";
import { documentAjv } from "./support/document_ajv.ts";
import { ERROR_STATUS, type ErrorCode } from "../supabase/functions/_shared/errors.ts";
import { ERROR_EXAMPLES } from "../openapi/error_examples.ts";
import { type FunctionDescription, FUNCTIONS } from "../openapi/function_descriptions.ts";
import { buildOpenApiDocument } from "../openapi/openapi_document.ts";

const ID = "https://create-order.local/openapi.json";
const document = JSON.parse(await Deno.readTextFile(new URL("../openapi.json", import.meta.url)));
// multipleOf 0.01 on a float: 0.29 / 0.01 is 28.999999999999996, a multiple in decimal
const ajv = documentAjv({ strict: false, validateFormats: false });
ajv.addSchema(document, ID);

const _pointer = (...parts: string[]) =>
  "#/" + parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/** Every example of the document with the schema it must match, as [where, schema pointer, value]. */
function _examples(): [string, string, unknown][] {
  const found: [string, string, unknown][] = [];
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Json>)) {
    for (const [i, value] of ((schema.examples as unknown[]) ?? []).entries()) {
      found.push([`${name} examples[${i}]`, _pointer("components", "schemas", name), value]);
    }
  }
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const media: [string, Json][] = [];
      const body = (operation.requestBody as Json | undefined)?.content as Json | undefined;
      if (body) {
        media.push([_pointer("paths", path, method, "requestBody", "content"), body]);
      }
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const content = response.content as Json | undefined;
        if (content) {
          media.push([
            _pointer("paths", path, method, "responses", status, "content"),
            content,
          ]);
        }
      }
      for (const [pointer, content] of media) {
        const examples = (content["application/json"] as Json).examples as Record<string, Json> | undefined;
        for (const [name, example] of Object.entries(examples ?? {})) {
          found.push([
            `${method} ${path} ${pointer} ${name}`,
            `${pointer}/application~1json/schema`,
            example.value,
          ]);
        }
      }
    }
  }
  return found;
}

type Json = Record<string, unknown>;

Deno.test("every example in openapi.json is valid under the schema beside it", () => {
  const examples = _examples();
  assert.ok(examples.length > 40, `only ${examples.length} examples`);
  for (const [where, pointer, value] of examples) {
    const validate = ajv.getSchema(`${ID}${pointer}`)!;
    assert.ok(validate(value), `${where}: ${ajv.errorsText(validate.errors)}`);
  }
});

Deno.test("openapi.json shows each operation's request and answer, and an example of every code it answers", () => {
  for (const fn of FUNCTIONS) {
    const operation = document.paths[fn.path][fn.method];
    if (fn.request) {
      const examples = operation.requestBody.content["application/json"].examples;
      assert.ok(Object.keys(examples ?? {}).length > 0, `${fn.operationId} has no request example`);
    }
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === "query") assert.ok(parameter.example, `${fn.operationId} ${parameter.name}`);
    }
    const success = operation.responses["200"].content["application/json"].examples;
    assert.ok(Object.keys(success ?? {}).length > 0, `${fn.operationId} has no answer example`);
    for (const code of fn.errors) {
      const examples = operation.responses[String(ERROR_STATUS[code])].content["application/json"].examples;
      assert.equal(examples?.[code]?.value?.error?.code, code, `${fn.operationId} has no example of ${code}`);
    }
  }
});

Deno.test("every error code has an example body, also on its component schema", () => {
  const codes = Object.keys(ERROR_STATUS) as ErrorCode[];
  assert.deepEqual(codes.filter((code) => !ERROR_EXAMPLES[code]), []);
  for (const code of codes) {
    const name = code.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, l: string) => l.toUpperCase()) + "Error";
    assert.equal(document.components.schemas[name].examples[0].error.code, code);
  }
});

Deno.test("createOrder's answer links to track-order with its orderId (the token comes from the e-mail)", () => {
  const links = document.paths["/create-order"].post.responses["200"].links;
  assert.deepEqual(links.trackOrder.parameters, { order: "$response.body#/orderId" });
  assert.equal(links.trackOrder.operationId, "trackOrder");
  assert.ok(document.paths["/track-order"].get.parameters.some((p: Json) => p.name === "order"));
});

/** The links of createOrder's 200 in a built document. */
function _createOrderLinks(built: Json): Record<string, Json> | undefined {
  const paths = built.paths as Record<
    string,
    { post: { responses: Record<string, { links?: Record<string, Json> }> } }
  >;
  return paths["/create-order"].post.responses["200"].links;
}

Deno.test("buildOpenApiDocument() links createOrder to start-payment with { orderId } once start-payment is described", () => {
  const createOrder = FUNCTIONS.find((fn) => fn.operationId === "createOrder")!;
  const startPayment: FunctionDescription = {
    ...createOrder,
    path: "/start-payment",
    operationId: "startPayment",
    parameters: [],
    errors: ["INTERNAL_ERROR"],
  };
  assert.equal(
    _createOrderLinks(buildOpenApiDocument([createOrder])),
    undefined,
    "no link to what is not there",
  );
  const links = _createOrderLinks(buildOpenApiDocument([createOrder, startPayment]))!;
  assert.deepEqual(links.startPayment, {
    operationId: "startPayment",
    description: links.startPayment.description,
    requestBody: { orderId: "$response.body#/orderId" },
  });
});
