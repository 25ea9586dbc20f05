/**
 * A small JSON Schema sampler: fast-check arbitraries of the values a schema of openapi.json describes,
 * as a property-based tester (Schemathesis, a generated client) would draw them from the document alone.
 * It reads the keywords our documents use: $ref, const, enum, type (or a list of them), anyOf/oneOf of
 * alternatives, properties and required, items with minItems/maxItems, minLength/maxLength, pattern
 * (pattern_arbitrary.ts), format uuid, minimum/maximum and multipleOf. Rules between fields (an object's
 * oneOf, allOf, if/then) are not solved: every sample is filtered by the whole schema with Ajv, as a
 * tester's validator would.
 */
import fc from "fast-check";
import { documentAjv } from "./document_ajv.ts";
import { patternArbitrary } from "./pattern_arbitrary.ts";

type Schema = Record<string, unknown>;

const ID = "https://create-order.local/openapi.json";

/** How many more array items than `minItems` a sample has at most (a cart of a few lines, not 100). */
const EXTRA_ITEMS = 4;

/** Values of the schema at `pointer` (`#/components/schemas/CreateOrderRequest`) of `document`. */
export function documentSchemaArbitrary(document: Schema, pointer: string): fc.Arbitrary<unknown> {
  const ajv = documentAjv({ strict: false, validateFormats: false });
  ajv.addSchema(document, ID);
  const validate = ajv.getSchema(`${ID}${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return _arbitrary(_resolve(document, pointer), document).filter((value) => validate(value) === true);
}

function _resolve(document: Schema, pointer: string): Schema {
  let node: unknown = document;
  for (const part of pointer.replace(/^#\//, "").split("/")) {
    node = (node as Schema)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return node as Schema;
}

function _arbitrary(schema: Schema, document: Schema): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === "string") return _arbitrary(_resolve(document, schema.$ref), document);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives && schema.type === undefined && schema.properties === undefined) {
    return fc.oneof(...alternatives.map((alternative) => _arbitrary(alternative, document)));
  }
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => _arbitrary({ ...schema, type }, document)));
  }
  switch (schema.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: _number(schema.minimum, -1e6), max: _number(schema.maximum, 1e6) });
    case "number":
      return _numberArbitrary(schema);
    case "string":
      return _stringArbitrary(schema);
    case "array":
      return fc.array(_arbitrary(schema.items as Schema, document), {
        minLength: _number(schema.minItems, 0),
        maxLength: Math.min(_number(schema.maxItems, Infinity), _number(schema.minItems, 0) + EXTRA_ITEMS),
      });
    case "object":
      return _objectArbitrary(schema, document);
    default:
      throw new Error(`the sampler cannot draw ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

const _number = (value: unknown, fallback: number) => typeof value === "number" ? value : fallback;

function _numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = _number(schema.minimum, -1e9);
  const max = _number(schema.maximum, 1e9);
  if (typeof schema.multipleOf !== "number") return fc.double({ min, max, noNaN: true });
  const step = schema.multipleOf;
  const decimals = (String(step).split(".")[1] ?? "").length;
  // k / 10^d rather than k × step: the double nearest the decimal, as a JSON writer would send it
  return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) })
    .map((k) => Number((k * step).toFixed(decimals)));
}

function _stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = _number(schema.minLength, 0);
  const maxLength = _number(schema.maxLength, 64);
  if (schema.format === "uuid") return fc.uuid();
  const base = typeof schema.pattern === "string"
    ? patternArbitrary(schema.pattern, maxLength)
    : fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 20), unit: "grapheme" });
  return base.filter((value) => [...value].length >= minLength);
}

function _objectArbitrary(schema: Schema, document: Schema): fc.Arbitrary<Schema> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    // `false`: a property the object must not have in some alternative; it is drawn as absent
    if (typeof property === "object") model[name] = _arbitrary(property, document);
  }
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) }) as fc.Arbitrary<Schema>;
}
