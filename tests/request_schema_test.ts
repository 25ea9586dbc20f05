import assert from "node:assert/strict";
import { parseCreateOrderRequest } from "../supabase/functions/create-order/request_schema.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import { ABOVE_CATALOGUE_MINOR } from "../supabase/functions/_shared/orders/money.ts";

const STORE = "11111111-1111-4111-8111-111111111111";
const PRODUCT = "aaaaaaaa-0001-4000-8000-000000000001";
const VARIANT = "bbbbbbbb-0002-4000-8000-000000000002";

function valid(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    storeId: STORE,
    buyerEmail: "asha@example.com",
    buyerName: "Asha Rao",
    buyerPhone: "+919876543210",
    shippingAddress: {
      line1: "12 MG Road",
      city: "Pune",
      state: "Maharashtra",
      postalCode: "411001",
      country: "IN",
    },
    items: [{ productId: PRODUCT, quantity: 2, price: 349 }],
    paymentMethod: "upi_direct",
    paymentProofUrl: "https://proofs.example.com/1.png",
    ...overrides,
  };
}

function address(overrides: Record<string, unknown>) {
  return { shippingAddress: { ...(valid().shippingAddress as object), ...overrides } };
}

function item(overrides: Record<string, unknown>) {
  return { items: [{ productId: PRODUCT, quantity: 1, price: 349, ...overrides }] };
}

/** The paths of the issues a body is refused for (asserting paths, never prose). */
function failingPaths(body: unknown): string[] {
  try {
    parseCreateOrderRequest(body);
  } catch (error) {
    assert.ok(error instanceof OrderError);
    assert.equal(error.code, "VALIDATION_FAILED");
    return (error.details as { path: string }[]).map((issue) => issue.path);
  }
  assert.fail("the body was accepted");
}

Deno.test("parseCreateOrderRequest() accepts a valid upi_direct order and converts prices to minor units", () => {
  const order = parseCreateOrderRequest(valid());
  assert.deepEqual(order.items, [{
    productId: PRODUCT,
    variantId: null,
    quantity: 2,
    unitPriceMinor: 34_900,
    submittedPrice: 349,
  }]);
  assert.equal(order.gatewayMethod, null);
  assert.equal(order.paymentProofUrl, "https://proofs.example.com/1.png");
});

Deno.test("parseCreateOrderRequest() refuses every missing required field", async (t) => {
  for (
    const field of [
      "storeId",
      "buyerEmail",
      "buyerName",
      "buyerPhone",
      "shippingAddress",
      "items",
      "paymentMethod",
    ]
  ) {
    await t.step(field, () => {
      const body = valid();
      delete body[field];
      assert.deepEqual(failingPaths(body), [field]);
    });
  }
});

Deno.test("parseCreateOrderRequest() refuses an unknown top-level field", () => {
  assert.deepEqual(failingPaths(valid({ discount: 100 })), ["discount"]);
});

Deno.test("parseCreateOrderRequest() refuses unknown fields in the address and items", () => {
  assert.deepEqual(failingPaths(valid(address({ zip: "1" }))), ["shippingAddress.zip"]);
  assert.deepEqual(failingPaths(valid(item({ total: 1 }))), ["items.0.total"]);
});

Deno.test("parseCreateOrderRequest() refuses a body that is not an object", async (t) => {
  for (const body of [null, [], "order", 42, true]) {
    await t.step(JSON.stringify(body), () => assert.deepEqual(failingPaths(body), [""]));
  }
});

Deno.test("parseCreateOrderRequest() requires storeId, productId and variantId to be UUIDs", () => {
  assert.deepEqual(failingPaths(valid({ storeId: "store-1" })), ["storeId"]);
  assert.deepEqual(failingPaths(valid(item({ productId: "p1" }))), ["items.0.productId"]);
  assert.deepEqual(failingPaths(valid(item({ variantId: "v1" }))), ["items.0.variantId"]);
});

Deno.test("parseCreateOrderRequest() accepts variantId when it is a UUID", () => {
  assert.equal(parseCreateOrderRequest(valid(item({ variantId: VARIANT }))).items[0].variantId, VARIANT);
});

Deno.test("parseCreateOrderRequest() trims buyerEmail and requires a valid address of at most 254 chars", () => {
  assert.equal(
    parseCreateOrderRequest(valid({ buyerEmail: "  asha@example.com " })).buyerEmail,
    "asha@example.com",
  );
  assert.deepEqual(failingPaths(valid({ buyerEmail: "asha@" })), ["buyerEmail"]);
  assert.deepEqual(failingPaths(valid({ buyerEmail: `${"a".repeat(250)}@example.com` })), ["buyerEmail"]);
});

Deno.test("parseCreateOrderRequest() requires buyerName of 1 to 200 chars after trim", () => {
  assert.deepEqual(failingPaths(valid({ buyerName: "   " })), ["buyerName"]);
  assert.deepEqual(failingPaths(valid({ buyerName: "a".repeat(201) })), ["buyerName"]);
  assert.equal(
    parseCreateOrderRequest(valid({ buyerName: ` ${"a".repeat(200)} ` })).buyerName,
    "a".repeat(200),
  );
});

Deno.test("parseCreateOrderRequest() normalises buyerPhone to E.164", () => {
  assert.equal(
    parseCreateOrderRequest(valid({ buyerPhone: "+91 (98765) 432-10" })).buyerPhone,
    "+919876543210",
  );
  assert.equal(parseCreateOrderRequest(valid({ buyerPhone: "+1.415.555.0100" })).buyerPhone, "+14155550100");
});

Deno.test("parseCreateOrderRequest() requires buyerPhone with a country code and 7 to 15 digits", async (t) => {
  for (const phone of ["9876543210", "+12345", "+1234567890123456", "+91 98765 4321x", "++919876543210"]) {
    await t.step(phone, () => assert.deepEqual(failingPaths(valid({ buyerPhone: phone })), ["buyerPhone"]));
  }
});

Deno.test("parseCreateOrderRequest() requires paymentMethod upi_direct or gateway", () => {
  assert.deepEqual(failingPaths(valid({ paymentMethod: "cash" })), ["paymentMethod"]);
});

Deno.test("parseCreateOrderRequest() requires paymentProofUrl for upi_direct", () => {
  assert.deepEqual(failingPaths(valid({ paymentProofUrl: undefined })), ["paymentProofUrl"]);
});

Deno.test("parseCreateOrderRequest() makes paymentProofUrl optional for gateway", () => {
  const order = parseCreateOrderRequest(valid({ paymentMethod: "gateway", paymentProofUrl: undefined }));
  assert.equal(order.paymentProofUrl, null);
});

Deno.test("parseCreateOrderRequest() accepts only absolute http(s) proof URLs of at most 2048 chars", async (t) => {
  const refused = [
    "javascript:alert(1)",
    "data:image/png;base64,AAAA",
    "ftp://example.com/p.png",
    "/relative/p.png",
    `https://example.com/${"a".repeat(2030)}`,
    "https://paytm.com@evil.example/proof.png", // reads as paytm.com, leads to evil.example
    "https://user:secret@example.com/p.png",
  ];
  for (const url of refused) {
    await t.step(
      url.slice(0, 40),
      () => assert.deepEqual(failingPaths(valid({ paymentProofUrl: url })), ["paymentProofUrl"]),
    );
  }
  assert.equal(
    parseCreateOrderRequest(valid({ paymentProofUrl: "http://example.com/p.png" })).paymentProofUrl,
    "http://example.com/p.png",
  );
});

Deno.test("parseCreateOrderRequest() defaults gatewayMethod to card for gateway", () => {
  assert.equal(parseCreateOrderRequest(valid({ paymentMethod: "gateway" })).gatewayMethod, "card");
  assert.equal(
    parseCreateOrderRequest(valid({ paymentMethod: "gateway", gatewayMethod: "wallet" })).gatewayMethod,
    "wallet",
  );
});

Deno.test("parseCreateOrderRequest() allows gatewayMethod only with gateway, from card, upi, wallet", () => {
  assert.deepEqual(failingPaths(valid({ gatewayMethod: "card" })), ["gatewayMethod"]);
  assert.deepEqual(failingPaths(valid({ paymentMethod: "gateway", gatewayMethod: "netbanking" })), [
    "gatewayMethod",
  ]);
});

Deno.test("parseCreateOrderRequest() requires an assigned ISO 3166-1 alpha-2 country, stored upper-case", async (t) => {
  assert.equal(parseCreateOrderRequest(valid(address({ country: "in" }))).shippingAddress.country, "IN");
  // "ıN", "ſe": letters that upper-case to ASCII
  for (const country of ["IND", "ZZ", "", "I", 91, "\u0131N", "\u017fe", "ｉｎ"]) {
    await t.step(JSON.stringify(country), () => {
      assert.deepEqual(failingPaths(valid(address({ country }))), ["shippingAddress.country"]);
    });
  }
});

Deno.test("parseCreateOrderRequest() requires postalCode of 1 to 20 chars", () => {
  assert.deepEqual(failingPaths(valid(address({ postalCode: "" }))), ["shippingAddress.postalCode"]);
  assert.deepEqual(failingPaths(valid(address({ postalCode: "1".repeat(21) }))), [
    "shippingAddress.postalCode",
  ]);
});

Deno.test("parseCreateOrderRequest() requires line1, city and state of 1 to 200 chars", async (t) => {
  for (const field of ["line1", "city", "state"]) {
    await t.step(field, () => {
      assert.deepEqual(failingPaths(valid(address({ [field]: " " }))), [`shippingAddress.${field}`]);
      assert.deepEqual(failingPaths(valid(address({ [field]: "x".repeat(201) }))), [
        `shippingAddress.${field}`,
      ]);
    });
  }
});

Deno.test("parseCreateOrderRequest() makes line2 optional and at most 200 chars", () => {
  assert.equal(parseCreateOrderRequest(valid()).shippingAddress.line2, null);
  assert.equal(
    parseCreateOrderRequest(valid(address({ line2: "Flat 4B" }))).shippingAddress.line2,
    "Flat 4B",
  );
  assert.deepEqual(failingPaths(valid(address({ line2: "x".repeat(201) }))), ["shippingAddress.line2"]);
});

Deno.test("parseCreateOrderRequest() requires 1 to 100 items", () => {
  assert.deepEqual(failingPaths(valid({ items: [] })), ["items"]);
  const many = Array.from({ length: 101 }, () => ({ productId: PRODUCT, quantity: 1, price: 1 }));
  assert.deepEqual(failingPaths(valid({ items: many })), ["items"]);
  assert.equal(parseCreateOrderRequest(valid({ items: many.slice(0, 100) })).items.length, 100);
});

Deno.test("parseCreateOrderRequest() requires quantity to be an integer from 1 to 10000", async (t) => {
  for (const quantity of [0, -1, 1.5, 10_001, "2", null]) {
    await t.step(JSON.stringify(quantity), () => {
      assert.deepEqual(failingPaths(valid(item({ quantity }))), ["items.0.quantity"]);
    });
  }
  assert.equal(parseCreateOrderRequest(valid(item({ quantity: 10_000 }))).items[0].quantity, 10_000);
});

Deno.test("parseCreateOrderRequest() requires price to be a finite number >= 0 with at most 2 decimals", async (t) => {
  for (const price of [-0.01, -1e21, 1.005, 0.1 + 0.2, 5e-324, Number.POSITIVE_INFINITY, "349", null]) {
    await t.step(String(price), () => {
      assert.deepEqual(failingPaths(valid(item({ price }))), ["items.0.price"]);
    });
  }
  assert.equal(parseCreateOrderRequest(valid(item({ price: 0 }))).items[0].unitPriceMinor, 0);
});

Deno.test("parseCreateOrderRequest() sets no upper limit on price: above numeric(12,2) it can equal no catalogue price, and keeps the number sent", async (t) => {
  const cases: [number, number][] = [
    [9_999_999_999.99, 999_999_999_999],
    [10_000_000_000, ABOVE_CATALOGUE_MINOR],
    [99_999_999_999.99, ABOVE_CATALOGUE_MINOR],
    [1e21, ABOVE_CATALOGUE_MINOR],
    [Number.MAX_VALUE, ABOVE_CATALOGUE_MINOR],
  ];
  for (const [price, unitPriceMinor] of cases) {
    await t.step(`${price} -> ${unitPriceMinor}`, () => {
      const [parsed] = parseCreateOrderRequest(valid(item({ price }))).items;
      assert.deepEqual([parsed.unitPriceMinor, parsed.submittedPrice], [unitPriceMinor, price]);
    });
  }
});

Deno.test("parseCreateOrderRequest() reports every failing field at once", () => {
  assert.deepEqual(failingPaths(valid({ buyerName: "", paymentMethod: "cash" })), [
    "buyerName",
    "paymentMethod",
  ]);
});

Deno.test("parseCreateOrderRequest() refuses a __proto__ key instead of merging it", () => {
  const body = JSON.parse(`{"__proto__": {"isAdmin": true}, ${JSON.stringify(valid()).slice(1)}`);
  assert.deepEqual(failingPaths(body), ["__proto__"]);
});

/** Every free-text field of the request, as a body override and the path it is reported at. */
const TEXT_FIELDS: [string, (value: string) => Record<string, unknown>][] = [
  ["buyerName", (value) => ({ buyerName: value })],
  ...["line1", "line2", "city", "state", "postalCode"].map((
    field,
  ): [string, (value: string) => Record<string, unknown>] => [
    `shippingAddress.${field}`,
    (value) => address({ [field]: value }),
  ]),
];

Deno.test("parseCreateOrderRequest() refuses control characters, bidi controls and invisible-only text in every text field", async (t) => {
  const hostile: [string, string][] = [
    ["a forged e-mail section (LF)", "Flat 4\n\nPAYMENT\nPaid online, verified automatically. Ship now."],
    ["CR", "Asha\rRao"],
    ["TAB", "Asha\tRao"],
    ["ESC", "Asha\u001b[2J"],
    ["BEL", "Asha\u0007"],
    ["DEL", "Asha\u007f"],
    ["C1 (NEL)", "Asha\u0085"],
    ["U+202E RIGHT-TO-LEFT OVERRIDE", "\u202e00.001 \u20b9"],
    ["U+2066 LEFT-TO-RIGHT ISOLATE", "A\u2066B"],
    ["only U+200B ZERO WIDTH SPACE", "\u200b\u200b"],
    ["only U+3164 HANGUL FILLER", "\u3164"],
    ["only U+2800 BRAILLE PATTERN BLANK", "\u2800"],
    ["only combining marks", "\u0301\u0308"],
  ];
  for (const [path, set] of TEXT_FIELDS) {
    for (const [kind, value] of hostile) {
      await t.step(`${path}: ${kind}`, () => assert.deepEqual(failingPaths(valid(set(value))), [path]));
    }
  }
});

Deno.test("parseCreateOrderRequest() stores every text field NFC-normalised", () => {
  const order = parseCreateOrderRequest(valid({
    buyerName: "Jose\u0301 Mu\u0308ller",
    ...address({ line1: "Cafe\u0301 Street", line2: "A\u030a", city: "Zu\u0308rich", state: "Gene\u0300ve" }),
  }));
  assert.equal(order.buyerName, "Jos\u00e9 M\u00fcller");
  assert.deepEqual(
    [
      order.shippingAddress.line1,
      order.shippingAddress.line2,
      order.shippingAddress.city,
      order.shippingAddress.state,
    ],
    ["Caf\u00e9 Street", "\u00c5", "Z\u00fcrich", "Gen\u00e8ve"],
  );
});

Deno.test("parseCreateOrderRequest() takes a blank or null line2 as none", async (t) => {
  for (const line2 of ["", "   ", null]) {
    await t.step(JSON.stringify(line2), () => {
      assert.equal(parseCreateOrderRequest(valid(address({ line2 }))).shippingAddress.line2, null);
    });
  }
});

Deno.test("parseCreateOrderRequest() stores paymentProofUrl as the parsed URL's serialisation", async (t) => {
  const cases: [string, string][] = [
    [
      "https://proofs.example.com/p.png\r\nBcc: victim@example.com",
      "https://proofs.example.com/p.pngBcc:%20victim@example.com",
    ],
    ["https://proofs.example.com/a b.png", "https://proofs.example.com/a%20b.png"],
    ["  HTTPS://Proofs.Example.com/p.png  ", "https://proofs.example.com/p.png"],
    ["https://proofs.example.com", "https://proofs.example.com/"],
  ];
  for (const [url, stored] of cases) {
    await t.step(JSON.stringify(url), () => {
      const proof = parseCreateOrderRequest(valid({ paymentProofUrl: url })).paymentProofUrl!;
      assert.equal(proof, stored);
      assert.doesNotMatch(proof, /[\r\n ]/);
    });
  }
  // the serialisation counts: 700 spaces become 2100 characters
  assert.deepEqual(failingPaths(valid({ paymentProofUrl: `https://example.com/${" ".repeat(700)}x` })), [
    "paymentProofUrl",
  ]);
});

Deno.test("parseCreateOrderRequest() takes gatewayMethod null as absent", () => {
  assert.equal(
    parseCreateOrderRequest(valid({ paymentMethod: "gateway", gatewayMethod: null })).gatewayMethod,
    "card",
  );
  assert.equal(parseCreateOrderRequest(valid({ gatewayMethod: null })).gatewayMethod, null);
});

Deno.test("parseCreateOrderRequest() accepts and refuses buyerEmail by the contract's rule", async (t) => {
  for (const email of ["u=x@example.com", "u@example.xn--p1ai", "V+1@Example.com"]) {
    await t.step(
      `accepts ${email}`,
      () => assert.equal(parseCreateOrderRequest(valid({ buyerEmail: email })).buyerEmail, email),
    );
  }
  for (
    const email of ["u@example-.com", `${"a".repeat(65)}@example.com`, '"a b"@example.com', "u@[127.0.0.1]"]
  ) {
    await t.step(
      `refuses ${email.slice(0, 30)}`,
      () => assert.deepEqual(failingPaths(valid({ buyerEmail: email })), ["buyerEmail"]),
    );
  }
});

Deno.test("parseCreateOrderRequest() refuses buyerPhone +0000000: a country code never starts with 0", () => {
  assert.deepEqual(failingPaths(valid({ buyerPhone: "+0000000" })), ["buyerPhone"]);
});
