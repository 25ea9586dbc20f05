/**
 * openapi.json's request schemas say the functions' rules: for each rule JSON Schema can say (patterns,
 * lengths, multipleOf, minimum, formats, the one-of rules between fields), a body the function refuses is
 * refused by the document too, and a body the document accepts the function accepts. Where the document
 * is stricter on purpose (it cannot say "trimmed"), the table says so.
 */
import assert from "node:assert/strict";
import { documentAjv } from "./support/document_ajv.ts";
import { parseCreateOrderRequest } from "../supabase/functions/create-order/request_schema.ts";
import { parseStatusMoveRequest } from "../supabase/functions/update-order-status/request_schema.ts";
import { OPERATION_EXAMPLES } from "../openapi/operation_examples.ts";

const ID = "https://create-order.local/openapi.json";
const document = JSON.parse(await Deno.readTextFile(new URL("../openapi.json", import.meta.url)));
const ajv = documentAjv({ strict: false, validateFormats: false });
ajv.addSchema(document, ID);
const createOrderSchema = ajv.getSchema(`${ID}#/components/schemas/CreateOrderRequest`)!;
const statusMoveSchema = ajv.getSchema(`${ID}#/components/schemas/StatusMoveRequest`)!;

type Body = Record<string, unknown>;

const _accepts = (parse: (body: unknown) => unknown, body: unknown) => {
  try {
    parse(body);
    return true;
  } catch {
    return false;
  }
};

const ORDER = OPERATION_EXAMPLES.createOrder.request!.gateway.value as Body;
const order = (changes: Body): Body => ({ ...ORDER, ...changes });
const address = (changes: Body): Body =>
  order({ shippingAddress: { ...(ORDER.shippingAddress as Body), ...changes } });
const item = (changes: Body): Body => order({ items: [{ ...(ORDER.items as Body[])[0], ...changes }] });
const PROOF = "https://bank.example/upi/receipt/1";

/** [what, body, the function's and the document's verdict]. */
const CREATE_ORDER_CASES: [string, Body, boolean][] = [
  ["the gateway example", ORDER, true],
  [
    "upi_direct with its proof",
    order({ paymentMethod: "upi_direct", gatewayMethod: undefined, paymentProofUrl: PROOF }),
    true,
  ],
  ["upi_direct without a proof", order({ paymentMethod: "upi_direct", gatewayMethod: undefined }), false],
  [
    "upi_direct with a null proof",
    order({ paymentMethod: "upi_direct", gatewayMethod: null, paymentProofUrl: null }),
    false,
  ],
  [
    "upi_direct naming a gateway method",
    order({ paymentMethod: "upi_direct", paymentProofUrl: PROOF }),
    false,
  ],
  [
    "upi_direct with a null gateway method",
    order({ paymentMethod: "upi_direct", gatewayMethod: null, paymentProofUrl: PROOF }),
    true,
  ],
  ["a gateway method that is none", order({ gatewayMethod: "netbanking" }), false],
  [
    "a proof that is no http(s) URL",
    order({ paymentMethod: "upi_direct", gatewayMethod: undefined, paymentProofUrl: "ftp://bank.example/1" }),
    false,
  ],
  [
    "a proof with a user name",
    order({
      paymentMethod: "upi_direct",
      gatewayMethod: undefined,
      paymentProofUrl: "https://bank.example@evil.example/",
    }),
    false,
  ],
  ["a price of 3 decimals", item({ price: 1.005 }), false],
  ["a negative price", item({ price: -1 }), false],
  ["a price of 0", item({ price: 0 }), true],
  ["a price of 0.29", item({ price: 0.29 }), true],
  ["a quantity of 0", item({ quantity: 0 }), false],
  ["a quantity of 1.5", item({ quantity: 1.5 }), false],
  ["a quantity of 10001", item({ quantity: 10001 }), false],
  ["a productId that is no UUID", item({ productId: "tea" }), false],
  ["no items", order({ items: [] }), false],
  ["an e-mail without a dot in its domain", order({ buyerEmail: "asha@localhost" }), false],
  ["an e-mail with two dots in a row", order({ buyerEmail: "asha..rao@example.com" }), false],
  ["an e-mail with a 65-character local part", order({ buyerEmail: `${"a".repeat(65)}@example.com` }), false],
  ["an IDN e-mail domain", order({ buyerEmail: "asha@example.xn--p1ai" }), true],
  ["a phone without its country code", order({ buyerPhone: "98765 43210" }), false],
  ["a phone with a country code of 0", order({ buyerPhone: "+0 98765 43210" }), false],
  ["a phone typed with parentheses and dots", order({ buyerPhone: "+91 (98765).43210" }), true],
  [
    "a phone with no-break spaces, as pasted from contacts",
    order({ buyerPhone: "+91\u00a098765\u202f43210" }),
    true,
  ],
  ["a phone with a tab", order({ buyerPhone: "+91\t98765 43210" }), false],
  ["a lower-case country", address({ country: "in" }), true],
  ["an unassigned country", address({ country: "ZZ" }), false],
  ["a three-letter country", address({ country: "IND" }), false],
  ["a name with a right-to-left override", order({ buyerName: "Asha \u202eRao" }), false],
  ["a name with a line break", order({ buyerName: "Asha\nRao" }), false],
  ["a name of zero-width spaces", order({ buyerName: "\u200b\u200b" }), false],
  ["a name in Devanagari", order({ buyerName: "आशा राव" }), true],
  ["a postal code of 21 characters", address({ postalCode: "1".repeat(21) }), false],
  // characters past U+FFFF count once, as JSON Schema's maxLength counts them (not as two UTF-16 units)
  ["a name of 200 emoji", order({ buyerName: "\u{1f600}".repeat(200) }), true],
  ["a name of 201 emoji", order({ buyerName: "\u{1f600}".repeat(201) }), false],
  ["a postal code of 20 characters past U+FFFF", address({ postalCode: "\u{1d7ce}".repeat(20) }), true],
  ["an unknown field", order({ coupon: "FREE" }), false],
];

/** Where the document refuses what the function takes: it cannot say "trimmed first". */
const CREATE_ORDER_STRICTER: [string, Body][] = [
  ["an e-mail with spaces around it (the function trims)", order({ buyerEmail: " asha@example.com " })],
  ["a line2 of only spaces (the function stores none)", address({ line2: "   " })],
  ["a country with spaces around it", address({ country: " IN " })],
];

/**
 * Where the document takes what the function refuses: text that NFC makes longer than its limit, which
 * JSON Schema counts as sent (README, "Decisions": the one way the document is looser).
 */
const CREATE_ORDER_LOOSER: [string, Body][] = [
  // U+0958 is a composition exclusion: NFC writes it as U+0915 U+093C, 101 code points as sent, 202 kept
  ["a name of 101 \u0958 (202 characters once NFC-normalised)", order({ buyerName: "\u0958".repeat(101) })],
];

Deno.test("CreateOrderRequest in openapi.json refuses what create-order refuses, rule by rule", async (t) => {
  for (const [what, body, accepted] of CREATE_ORDER_CASES) {
    await t.step(what, () => {
      assert.equal(_accepts(parseCreateOrderRequest, body), accepted, "the function");
      assert.equal(
        createOrderSchema(body),
        accepted,
        `the document: ${ajv.errorsText(createOrderSchema.errors)}`,
      );
    });
  }
  for (const [what, body] of CREATE_ORDER_STRICTER) {
    await t.step(`stricter: ${what}`, () => {
      assert.equal(_accepts(parseCreateOrderRequest, body), true);
      assert.equal(createOrderSchema(body), false);
    });
  }
  for (const [what, body] of CREATE_ORDER_LOOSER) {
    await t.step(`looser: ${what}`, () => {
      assert.equal(_accepts(parseCreateOrderRequest, body), false);
      assert.equal(createOrderSchema(body), true);
    });
  }
});

const ORDER_ID = "0196f1c2-7a4b-7c3d-8e5f-0a1b2c3d4e5f";
const STORE_ID = "11111111-1111-4111-8111-111111111111";

const STATUS_MOVE_CASES: [string, Body, boolean][] = [
  ["by orderId", { orderId: ORDER_ID, status: "paid" }, true],
  ["by storeId and orderNumber", { storeId: STORE_ID, orderNumber: "ORD-2026-000001", status: "paid" }, true],
  ["by orderId and storeId", { orderId: ORDER_ID, storeId: STORE_ID, status: "paid" }, false],
  [
    "by orderId and orderNumber",
    { orderId: ORDER_ID, orderNumber: "ORD-2026-000001", status: "paid" },
    false,
  ],
  ["by storeId alone", { storeId: STORE_ID, status: "paid" }, false],
  ["by orderNumber alone", { orderNumber: "ORD-2026-000001", status: "paid" }, false],
  ["naming no order", { status: "paid" }, false],
  ["a malformed order number", { storeId: STORE_ID, orderNumber: "ORD-26-1", status: "paid" }, false],
  ["cancelled with its reason", { orderId: ORDER_ID, status: "cancelled", note: "Buyer asked" }, true],
  ["cancelled without a reason", { orderId: ORDER_ID, status: "cancelled" }, false],
  ["cancelled with a null reason", { orderId: ORDER_ID, status: "cancelled", note: null }, false],
  ["shipped with its parcel", {
    orderId: ORDER_ID,
    status: "shipped",
    carrier: "Delhivery",
    trackingNumber: "EE123456789IN",
    trackingUrl: "https://track.carrier.example/EE123456789IN",
  }, true],
  ["a carrier with paid", { orderId: ORDER_ID, status: "paid", carrier: "Delhivery" }, false],
  ["a tracking link with delivered", {
    orderId: ORDER_ID,
    status: "delivered",
    trackingUrl: "https://t.example/1",
  }, false],
  ["a null carrier with paid", { orderId: ORDER_ID, status: "paid", carrier: null }, true],
  ["a tracking link that is no http(s) URL", {
    orderId: ORDER_ID,
    status: "shipped",
    trackingUrl: "javascript:alert(1)",
  }, false],
  ["a note with a line break", { orderId: ORDER_ID, status: "paid", note: "a\nb" }, false],
  ["a note of 501 characters", { orderId: ORDER_ID, status: "paid", note: "x".repeat(501) }, false],
  ["a note of 500 emoji", { orderId: ORDER_ID, status: "paid", note: "\u{1f600}".repeat(500) }, true],
  ["a note of 501 emoji", { orderId: ORDER_ID, status: "paid", note: "\u{1f600}".repeat(501) }, false],
  ["an unknown status", { orderId: ORDER_ID, status: "lost" }, false],
];

Deno.test("StatusMoveRequest in openapi.json says orderId xor storeId and orderNumber, and each field's rule", async (t) => {
  for (const [what, body, accepted] of STATUS_MOVE_CASES) {
    await t.step(what, () => {
      assert.equal(_accepts(parseStatusMoveRequest, body), accepted, "the function");
      assert.equal(
        statusMoveSchema(body),
        accepted,
        `the document: ${ajv.errorsText(statusMoveSchema.errors)}`,
      );
    });
  }
});

Deno.test("CreateOrderRequest carries its rules as keywords: patterns, lengths, multipleOf, minimum, formats, oneOf", () => {
  const schema = document.components.schemas.CreateOrderRequest;
  const item = schema.properties.items.items.properties;
  assert.deepEqual([item.price.minimum, item.price.multipleOf], [0, 0.01]);
  assert.equal(schema.properties.paymentProofUrl.anyOf[0].format, "uri");
  for (const field of ["buyerEmail", "buyerName", "buyerPhone"]) {
    assert.ok(schema.properties[field].pattern && schema.properties[field].maxLength, field);
  }
  for (const field of ["line1", "city", "state", "postalCode", "country"]) {
    assert.ok(schema.properties.shippingAddress.properties[field].pattern, field);
  }
  assert.deepEqual(schema.oneOf.map((branch: Body) => branch.title), ["upi_direct", "gateway"]);
});
