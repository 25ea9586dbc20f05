import assert from "node:assert/strict";
import { describeLineProblem, parseRupees, readCatalogueFile } from "../local/catalogue_file.ts";

const HEADER = "sku,name,price,variant_sku,variant_name,variant_price,stock,active";
const csv = (...lines: string[]) => [HEADER, ...lines].join("\n") + "\n";

function problems(text: string): string[] {
  const result = readCatalogueFile(text);
  assert.equal(result.ok, false, "the file was accepted");
  return result.ok ? [] : result.problems.map(describeLineProblem);
}

Deno.test("readCatalogueFile() reads products and variants: prices in paise, empty stock untracked, empty active true", async () => {
  const result = readCatalogueFile(
    await Deno.readTextFile(new URL("../docs/catalogue-sample.csv", import.meta.url)),
  );
  assert.ok(result.ok);
  assert.deepEqual(
    result.file.products.map((p) => [p.line, p.sku, p.name, p.priceMinor, p.stock, p.active]),
    [
      [2, "ASSAM-250", "Assam Tea 250 g", 34900, null, true],
      [3, "MASALA-100", "Masala Chai Mix 100 g", 19950, null, true],
      [4, "TUMBLER", "Steel Tumbler", 25000, null, true],
      [7, "GIFT-BOX", 'Gift Box: Assam, Masala & a "Chai & Co." Tumbler', 89900, 25, true],
    ],
  );
  assert.deepEqual(result.file.variants.map((v) => [v.line, v.productSku, v.sku, v.name, v.priceMinor]), [
    [5, "TUMBLER", "TUMBLER-S", "Small 200 ml", null],
    [6, "TUMBLER", "TUMBLER-L", "Large 400 ml", 29900],
  ]);
  const plain = readCatalogueFile(csv("A,Tea,10,,,,0,FALSE", "A,Tea,10.00,A-1,Cup,,,"));
  assert.ok(plain.ok);
  assert.deepEqual([plain.file.products[0].stock, plain.file.products[0].active], [0, false]);
  assert.deepEqual([plain.file.variants[0].priceMinor, plain.file.variants[0].active], [null, true]);
});

Deno.test("readCatalogueFile() names every bad line and column, not only the first, and checks bad lines against each other too", () => {
  assert.deepEqual(
    problems(csv(
      "ASSAM-250,Assam Tea,349.00,,,,,true",
      "bad sku,,₹349,,,,-1,yes",
      "MASALA,Masala\u202eMix,1,349.00,,,,,",
      "TEA,Tea,349.999,,Cup,5,,",
      "TUMBLER,Tumbler,250,T-1,,12.345,,",
      "ASSAM-250,Assam again,349.00,,,,,",
    )),
    [
      'line 3, sku: must be 1-64 letters, digits and . _ / - (starting with a letter or digit): got "bad sku"',
      "line 3, name: is required",
      'line 3, price: must be an amount in rupees such as 349.00 (digits, at most 2 decimals, no currency sign or thousands separator): got "₹349"',
      'line 3, stock: must be a whole number from 0 to 2147483647, or empty (not tracked): got "-1"',
      'line 3, active: must be true, false or empty (true): got "yes"',
      "line 4: has 9 fields where the header has 8",
      'line 5, price: must be an amount in rupees such as 349.00 (digits, at most 2 decimals, no currency sign or thousands separator): got "349.999"',
      "line 5, variant_name: is only for a variant line (one with a variant_sku)",
      "line 5, variant_price: is only for a variant line (one with a variant_sku)",
      "line 6, name: must be empty or as on the product's line (there is none in this file)",
      "line 6, price: must be empty or as on the product's line (there is none in this file); a variant's own price goes in variant_price",
      "line 6, variant_name: is required",
      'line 6, variant_price: must be an amount in rupees such as 349.00 (digits, at most 2 decimals, no currency sign or thousands separator): got "12.345"',
      "line 7, sku: ASSAM-250 is already on line 2",
    ],
  );
});

Deno.test("readCatalogueFile() refuses names the e-mails could not show: control characters, bidi overrides, nothing visible, over 200", () => {
  assert.deepEqual(
    problems(csv(
      'A,"two\nlines",1,,,,,',
      "B,Tea\u202eaeT,1,,,,,",
      "C,\u200b\u200b,1,,,,,",
      `D,${"x".repeat(201)},1,,,,,`,
      "D,,,D-1,\u0007bell,,,",
    )),
    [
      "line 2, name: must not contain control characters or line breaks",
      "line 4, name: must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)",
      "line 5, name: must contain a visible character",
      "line 6, name: must be at most 200 characters (has 201)",
      "line 7, variant_name: must not contain control characters or line breaks",
    ],
  );
});

Deno.test("readCatalogueFile() takes a variant line's name and price only when empty or its product's, and a variant SKU once per product", () => {
  assert.deepEqual(
    problems(csv(
      "T,Tumbler,250.00,,,,,",
      "T,Tumbler,250,T-S,Small,,,",
      "T,Mug,260,T-L,Large,299,,",
      "T,,,T-S,Small again,,,",
      "OTHER,Other,,O-1,One,,,",
    )),
    [
      "line 4, name: must be empty or as on the product's line 2",
      "line 4, price: must be empty or as on the product's line 2; a variant's own price goes in variant_price",
      "line 5, variant_sku: T-S of T is already on line 3",
      "line 6, name: must be empty or as on the product's line (there is none in this file)",
    ],
  );
});

Deno.test("readCatalogueFile() refuses a file without the header, or with another, before reading any line", () => {
  assert.deepEqual(problems(""), [
    "line 1: the first line must be the header " + HEADER + ": got an empty file",
  ]);
  assert.deepEqual(problems("sku,name,price\nA,Tea,1\n"), [
    `line 1: the first line must be the header ${HEADER}: got "sku,name,price"`,
  ]);
  assert.deepEqual(problems(`${HEADER}\nA,"Tea,1,,,,,\n`), ["line 2: a quoted field is never closed"]);
});

Deno.test("parseRupees() reads whole rupees and up to two decimals exactly, nothing else", () => {
  assert.deepEqual(["349.00", "349", "199.5", "0", "0.01", "9999999999.99"].map(parseRupees), [
    34900,
    34900,
    19950,
    0,
    1,
    999_999_999_999,
  ]);
  for (const bad of ["", "-1", "1.234", "1,349.00", "₹349", "1e3", " 1", "10000000000"]) {
    assert.equal(parseRupees(bad), null, bad);
  }
});

Deno.test("readCatalogueFile() words a price problem in the store's currency: rupees for INR, the code for another", () => {
  const text = csv("A,Tea,$3.50,,,,,");
  assert.deepEqual(readCatalogueFile(text, { currency: "USD" }).problems.map(describeLineProblem), [
    'line 2, price: must be an amount in USD such as 349.00 (digits, at most 2 decimals, no currency sign or thousands separator): got "$3.50"',
  ]);
  assert.match(
    describeLineProblem(readCatalogueFile(text, { currency: "INR" }).problems[0]),
    /in rupees such/,
  );
});

Deno.test("readCatalogueFile() counts a name's characters as the database does, and refuses a zero-width space in a product or variant name", () => {
  const emoji = "\u{1F375}".repeat(200);
  const read = readCatalogueFile(csv(`A,${emoji},1,,,,,`));
  assert.ok(read.ok, JSON.stringify(read.problems));
  assert.equal(read.file.products[0].name, emoji);
  assert.deepEqual(
    problems(csv(`B,${emoji}\u{1F375},1,,,,,`, "C,Masala\u200bChai,1,,,,,", "C,,,C-1,Small\u200b,,,")),
    [
      "line 2, name: must be at most 200 characters (has 201)",
      "line 3, name: must not contain invisible characters such as a zero-width space (found U+200B)",
      "line 4, variant_name: must not contain invisible characters such as a zero-width space (found U+200B)",
    ],
  );
});

Deno.test("readCatalogueFile() keeps, beside its problems, every product line's SKU and every variant line's product SKU, from bad lines too", () => {
  const read = readCatalogueFile(
    csv("P1,Ok,1.00,,,,,yes", "NOPE,,,V1,Orphan variant,10.00,,true", "P1,,,V2,Two,,x,"),
  );
  assert.equal(read.ok, false);
  assert.deepEqual([...read.productSkus], ["P1"]);
  assert.deepEqual(read.productReferences, [{ line: 3, productSku: "NOPE" }, { line: 4, productSku: "P1" }]);
});
