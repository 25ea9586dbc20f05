/**
 * openapi.json's `multipleOf: 0.01` on prices, read in decimal as the README tells a validator to: with
 * Ajv's defaults 0.07 / 0.01 is 7.000000000000001, no whole number, and 11,426 of the 100,000 prices
 * 0.00–999.99 that the functions accept were refused. Every Ajv the project runs on the document is
 * support/document_ajv.ts's, which sets `multipleOfPrecision`.
 */
import assert from "node:assert/strict";
import { parseCreateOrderRequest } from "../supabase/functions/create-order/request_schema.ts";
import { documentAjv } from "./support/document_ajv.ts";

const ID = "https://create-order.local/openapi.json";
const ROOT = new URL("../", import.meta.url);
const document = JSON.parse(await Deno.readTextFile(new URL("openapi.json", ROOT)));
const PRICE = `${ID}#/components/schemas/CreateOrderRequest/properties/items/items/properties/price`;

function _priceValidator() {
  const ajv = documentAjv({ strict: false, validateFormats: false });
  ajv.addSchema(document, ID);
  return ajv.getSchema(PRICE)!;
}

/** Whether create-order's own schema takes `price` on an otherwise valid body. */
function _functionAccepts(price: number): boolean {
  const body = {
    storeId: crypto.randomUUID(),
    buyerEmail: "asha@example.com",
    buyerName: "Asha Rao",
    buyerPhone: "+91 98765 43210",
    shippingAddress: { line1: "12 MG Road", city: "Pune", state: "MH", postalCode: "411001", country: "IN" },
    items: [{ productId: crypto.randomUUID(), quantity: 1, price }],
    paymentMethod: "gateway",
  };
  try {
    parseCreateOrderRequest(body);
    return true;
  } catch {
    return false;
  }
}

Deno.test("openapi.json's price multipleOf 0.01, with multipleOfPrecision: 0.07, 4.35, 19.99, 2.01 and 349.99 validate, 349.999 does not", () => {
  const validPrice = _priceValidator();
  assert.equal(
    document.components.schemas.CreateOrderRequest.properties.items.items.properties.price.multipleOf,
    0.01,
  );
  for (const price of [0.07, 4.35, 19.99, 2.01, 349.99]) {
    assert.equal(validPrice(price), true, String(price));
    assert.equal(_functionAccepts(price), true, String(price));
  }
  assert.equal(validPrice(349.999), false);
  assert.equal(_functionAccepts(349.999), false);
});

Deno.test("openapi.json's price schema, with multipleOfPrecision, takes every price from 0.00 to 999.99 as the function does", () => {
  const validPrice = _priceValidator();
  const refused: number[] = [];
  for (let paise = 0; paise < 100_000; paise++) {
    const price = Number((paise / 100).toFixed(2));
    if (!validPrice(price)) refused.push(price);
  }
  assert.equal(refused.length, 0, `refused: ${refused.slice(0, 5).join(", ")}…`);
});

/** Every TypeScript file of the project's own folders, as paths from the root. */
async function _sources(folder: URL, under = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = `${under}${entry.name}`;
    if (entry.isDirectory) found.push(...await _sources(new URL(`${entry.name}/`, folder), `${path}/`));
    else if (entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}

Deno.test("every Ajv the project runs on openapi.json is support/document_ajv.ts's, which sets multipleOfPrecision", async () => {
  const makers: string[] = [];
  for (const top of ["tests", "local", "bench", "openapi", "client", "supabase"]) {
    for (const path of await _sources(new URL(`${top}/`, ROOT), `${top}/`)) {
      const source = await Deno.readTextFile(new URL(path, ROOT));
      if (path !== "tests/openapi_prices_test.ts" && /new Ajv|from "ajv/.test(source)) makers.push(path);
    }
  }
  assert.deepEqual(makers, ["tests/support/document_ajv.ts"]);
});
