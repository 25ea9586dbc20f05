/**
 * A catalogue file as `deno task catalogue:import` reads it (contract, "Going live"): CSV with the header
 * `sku,name,price,variant_sku,variant_name,variant_price,stock,active`. A line without `variant_sku` is a
 * product; a line with one is a variant of the product whose `sku` it names. Every line is checked before
 * anything is written, and every problem is reported with its line and column. Pure.
 */
import { checkFreeText } from "../supabase/functions/_shared/orders/text_rules.ts";
import { CsvSyntaxError, parseCsv } from "./csv.ts";
import {
  CATALOGUE_COLUMNS,
  type CatalogueColumn,
  type LineProblem,
  LineReader,
  MAX_CATALOGUE_NAME_LENGTH,
  parseRupees,
  type ProductLine,
  type VariantLine,
} from "./catalogue_line.ts";

export {
  type CatalogueColumn,
  type LineProblem,
  parseRupees,
  type ProductLine,
  type VariantLine,
} from "./catalogue_line.ts";

/** A file's lines, every one of them valid. */
export interface CatalogueFile {
  products: ProductLine[];
  variants: VariantLine[];
}

/** The file, or every problem found in it. */
export type CatalogueFileResult = { ok: true; file: CatalogueFile } | { ok: false; problems: LineProblem[] };

/** One problem as the task prints it: `line 4, price: must be …`. */
export function describeLineProblem({ line, column, problem }: LineProblem): string {
  return `line ${line}${column ? `, ${column}` : ""}: ${problem}`;
}

/** Checks every line of `text`; the file is only returned when no line has a problem. */
export function readCatalogueFile(text: string): CatalogueFileResult {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    return {
      ok: false,
      problems: [{ line: error.line, column: null, problem: error.message.replace(/^line \d+: /, "") }],
    };
  }
  const header = records[0]?.fields.map((field) => field.trim());
  if (!header || header.join(",") !== CATALOGUE_COLUMNS.join(",")) {
    return {
      ok: false,
      problems: [{
        line: records[0]?.line ?? 1,
        column: null,
        problem: `the first line must be the header ${CATALOGUE_COLUMNS.join(",")}: got ${
          header ? JSON.stringify(header.join(",")) : "an empty file"
        }`,
      }],
    };
  }
  const problems: LineProblem[] = [];
  const file: CatalogueFile = { products: [], variants: [] };
  for (const record of records.slice(1)) {
    if (record.fields.length !== CATALOGUE_COLUMNS.length) {
      problems.push({
        line: record.line,
        column: null,
        problem: `has ${record.fields.length} fields where the header has ${CATALOGUE_COLUMNS.length}`,
      });
      continue;
    }
    const row = Object.fromEntries(
      CATALOGUE_COLUMNS.map((column, i) => [column, record.fields[i]]),
    ) as Record<
      CatalogueColumn,
      string
    >;
    const reader = new LineReader(record.line, row, problems);
    if (row.variant_sku.trim() === "") {
      const product = reader.product();
      if (product) file.products.push(product);
    } else {
      const variant = reader.variant();
      if (variant) file.variants.push(variant);
    }
  }
  _checkRepeats(file, problems);
  _checkVariantsAgainstProducts(file, records.slice(1), problems);
  problems.sort((a, b) =>
    a.line - b.line || CATALOGUE_COLUMNS.indexOf(a.column!) - CATALOGUE_COLUMNS.indexOf(b.column!)
  );
  return problems.length > 0 ? { ok: false, problems } : { ok: true, file };
}

// one line per product SKU, and per variant SKU within its product
function _checkRepeats(file: CatalogueFile, problems: LineProblem[]): void {
  const products = new Map<string, number>();
  for (const product of file.products) {
    const first = products.get(product.sku);
    if (first === undefined) products.set(product.sku, product.line);
    else {problems.push({
        line: product.line,
        column: "sku",
        problem: `${product.sku} is already on line ${first}`,
      });}
  }
  const variants = new Map<string, number>();
  for (const variant of file.variants) {
    const key = `${variant.productSku}\u0000${variant.sku}`;
    const first = variants.get(key);
    if (first === undefined) variants.set(key, variant.line);
    else {
      problems.push({
        line: variant.line,
        column: "variant_sku",
        problem: `${variant.sku} of ${variant.productSku} is already on line ${first}`,
      });
    }
  }
}

/**
 * A variant line's `name` and `price` are its product's: empty, or the same as the product's line in this
 * file (spreadsheet exports repeat them). A different value would be an edit that changes nothing.
 */
function _checkVariantsAgainstProducts(
  file: CatalogueFile,
  lines: { line: number; fields: string[] }[],
  problems: LineProblem[],
): void {
  const products = new Map(file.products.map((product) => [product.sku, product]));
  const fieldsByLine = new Map(lines.map((record) => [record.line, record.fields]));
  for (const variant of file.variants) {
    const [, rawName, rawPrice] = fieldsByLine.get(variant.line)!;
    const product = products.get(variant.productSku);
    const name = rawName.trim() === "" ? null : checkFreeText(rawName, MAX_CATALOGUE_NAME_LENGTH);
    const price = rawPrice.trim() === "" ? null : parseRupees(rawPrice.trim());
    const where = product
      ? `the product's line ${product.line}`
      : "the product's line (there is none in this file)";
    if (name !== null && !(product && name.ok && name.text === product.name)) {
      problems.push({ line: variant.line, column: "name", problem: `must be empty or as on ${where}` });
    }
    if (rawPrice.trim() !== "" && !(product && price === product.priceMinor)) {
      problems.push({
        line: variant.line,
        column: "price",
        problem: `must be empty or as on ${where}; a variant's own price goes in variant_price`,
      });
    }
  }
}
