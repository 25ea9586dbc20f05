import assert from "node:assert/strict";
import { CsvSyntaxError, decodeUtf8, parseCsv } from "../local/csv.ts";

Deno.test("parseCsv() reads quoted fields with commas, doubled quotes and line breaks, each record with its first line", () => {
  const text = 'sku,name\r\nA-1,"Tea, black"\r\nA-2,"The ""Chai"" mug"\nA-3,"two\nlines"\nA-4,plain\n';
  assert.deepEqual(parseCsv(text), [
    { line: 1, fields: ["sku", "name"] },
    { line: 2, fields: ["A-1", "Tea, black"] },
    { line: 3, fields: ["A-2", 'The "Chai" mug'] },
    { line: 4, fields: ["A-3", "two\nlines"] },
    { line: 6, fields: ["A-4", "plain"] },
  ]);
});

Deno.test("parseCsv() drops a byte order mark and blank lines, and keeps empty fields", () => {
  assert.deepEqual(parseCsv('\uFEFFa,b,c\n\n,,\n"",x,\n'), [
    { line: 1, fields: ["a", "b", "c"] },
    { line: 3, fields: ["", "", ""] },
    { line: 4, fields: ["", "x", ""] },
  ]);
  assert.deepEqual(parseCsv("a,b"), [{ line: 1, fields: ["a", "b"] }]);
});

Deno.test("parseCsv() names the line of a quote never closed, or of text after a closing quote", () => {
  assert.throws(() => parseCsv('a,b\nx,"open\n\n'), (error: unknown) => {
    assert.ok(error instanceof CsvSyntaxError);
    assert.equal(error.message, "line 2: a quoted field is never closed");
    return true;
  });
  assert.throws(
    () => parseCsv('a,b\nx,y\nx,"quoted"tail\n'),
    { message: "line 3: a quoted field must end at a comma or the end of its line" },
  );
});

Deno.test("decodeUtf8() reads UTF-8, and names every line that is not, with its first bad byte (a Windows-1252 é, a lone surrogate)", () => {
  const text = new TextEncoder();
  const bytes = new Uint8Array([
    ...text.encode("sku,name,price,variant_sku,variant_name,variant_price,stock,active\nL1,Latin1 caf"),
    0xe9,
    ...text.encode(",1.00,,,,,true\nL2,Caf\u00e9 \u{1F375},1.00,,,,,true\nL3,"),
    0xed,
    0xa0,
    0x80,
    ...text.encode(",1.00,,,,,true\n"),
  ]);
  assert.deepEqual(decodeUtf8(bytes), {
    problems: [
      { line: 2, problem: "is not UTF-8 (byte E9 at byte 14 of the line): save the file as CSV UTF-8" },
      { line: 4, problem: "is not UTF-8 (byte ED at byte 4 of the line): save the file as CSV UTF-8" },
    ],
  });
  assert.deepEqual(decodeUtf8(text.encode("a,\u00e9\n")), { text: "a,\u00e9\n" });
});
