/**
 * The one way the tests validate against openapi.json: Ajv's JSON Schema 2020-12 (OpenAPI 3.1's dialect)
 * with `multipleOf` compared as decimals. A price's `multipleOf: 0.01` read in binary floating point refuses
 * 0.07, 4.35, 19.99 (0.07 / 0.01 is 7.000000000000001): with Ajv's defaults 11,426 of the 100,000 prices
 * 0.00–999.99 fail while the functions accept every one. `multipleOfPrecision: 8` makes Ajv take a quotient
 * within 1e-8 of a whole number, which is the decimal answer for every price below ₹1,00,000 (README,
 * "Integrate: typed client"). Every Ajv the tests run on the document is made here.
 */
import Ajv2020 from "ajv/dist/2020.js";

/** The decimals to which Ajv compares a `multipleOf` quotient with a whole number. */
export const MULTIPLE_OF_PRECISION = 8;

/** What an Ajv instance is, for a caller's type. */
export type DocumentAjv = InstanceType<typeof Ajv2020.default>;

/**
 * A new Ajv for openapi.json's schemas, `multipleOfPrecision` set; `options` as Ajv's own (`strict`,
 * `validateFormats`, `allErrors`).
 */
export function documentAjv(options: Record<string, unknown> = {}): DocumentAjv {
  return new Ajv2020.default({ ...options, multipleOfPrecision: MULTIPLE_OF_PRECISION });
}
