/**
 * A catalogue file as `deno task catalogue:import` reads it (contract, "Going live"): CSV with the header
 * `sku,name,price,variant_sku,variant_name,variant_price,stock,active`. A line without `variant_sku` is a
 * product; a line with one is a variant of the product whose `sku` it names. Every line is checked before
 * anything is written, and every problem is reported with its line and column. Pure.
 */
import { CsvSyntaxError, parseCsv } from "./csv.ts";
import {
  CATALOGUE_COLUMNS,
  type CatalogueColumn,
  isSku,
  type LineProblem,
  LineReader,
  MAX_CATALOGUE_NAME_LENGTH,
  parseRupees,
  type ProductLine,
  type VariantLine,
} from "./catalogue_line.ts";
import { currencyWord } from "./currencies.ts";
import { checkSellerName } from "./seller_text.ts";

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

/** A variant line's reference to its product, whether or not the rest of the line is good. */
export interface ProductReference {
  line: number;
  productSku: string;
}

/**
 * The file's good lines and every problem found in it (`ok` when there is none), with what the import's
 * check against the store needs even from bad lines: the SKUs of every product line, and every variant
 * line's product SKU. A variant whose product is neither is then named in the same run as the file's own
 * problems.
 */
export interface CatalogueFileResult {
  ok: boolean;
  file: CatalogueFile;
  problems: LineProblem[];
  productSkus: ReadonlySet<string>;
  productReferences: ProductReference[];
}

/** One problem as the task prints it: `line 4, price: must be …`. */
export function describeLineProblem({ line, column, problem }: LineProblem): string {
  return `line ${line}${column ? `, ${column}` : ""}: ${problem}`;
}

/** A file that could not be read past `problem`: no lines. */
function _unread(problem: LineProblem): CatalogueFileResult {
  return {
    ok: false,
    file: { products: [], variants: [] },
    problems: [problem],
    productSkus: new Set(),
    productReferences: [],
  };
}

/**
 * Checks every line of `text`; only a result that is `ok` may be imported. `currency` is the store's, for
 * the wording of price problems.
 */
export function readCatalogueFile(text: string, options: { currency?: string } = {}): CatalogueFileResult {
  const unit = currencyWord(options.currency ?? "INR");
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    return _unread({ line: error.line, column: null, problem: error.message.replace(/^line \d+: /, "") });
  }
  const header = records[0]?.fields.map((field) => field.trim());
  if (!header || header.join(",") !== CATALOGUE_COLUMNS.join(",")) {
    return _unread({
      line: records[0]?.line ?? 1,
      column: null,
      problem: `the first line must be the header ${CATALOGUE_COLUMNS.join(",")}: got ${
        header ? JSON.stringify(header.join(",")) : "an empty file"
      }`,
    });
  }
  const problems: LineProblem[] = [];
  const file: CatalogueFile = { products: [], variants: [] };
  const rows: _Row[] = [];
  for (const record of records.slice(1)) {
    if (record.fields.length !== CATALOGUE_COLUMNS.length) {
      problems.push({
        line: record.line,
        column: null,
        problem: `has ${record.fields.length} fields where the header has ${CATALOGUE_COLUMNS.length}`,
      });
      continue;
    }
    const fields = Object.fromEntries(CATALOGUE_COLUMNS.map((column, i) => [column, record.fields[i]]));
    const row = { line: record.line, fields: fields as Record<CatalogueColumn, string> };
    rows.push(row);
    const reader = new LineReader(row.line, row.fields, problems, unit);
    if (_isVariant(row)) {
      const variant = reader.variant();
      if (variant) file.variants.push(variant);
    } else {
      const product = reader.product();
      if (product) file.products.push(product);
    }
  }
  // what follows looks across lines, good or bad, so that one run names every problem of every line
  const productRows = rows.filter((row) => !_isVariant(row) && isSku(row.fields.sku.trim()));
  const variantRows = rows.filter((row) => _isVariant(row) && isSku(row.fields.sku.trim()));
  _checkRepeats(productRows, variantRows, problems);
  _checkVariantsAgainstProducts(productRows, variantRows, problems);
  sortProblems(problems);
  return {
    ok: problems.length === 0,
    file,
    problems,
    productSkus: new Set(productRows.map((row) => row.fields.sku.trim())),
    productReferences: variantRows.map((row) => ({ line: row.line, productSku: row.fields.sku.trim() })),
  };
}

/** Sorts problems as the task prints them: by line, then by column in the header's order. */
export function sortProblems(problems: LineProblem[]): LineProblem[] {
  return problems.sort((a, b) =>
    a.line - b.line || CATALOGUE_COLUMNS.indexOf(a.column!) - CATALOGUE_COLUMNS.indexOf(b.column!)
  );
}

interface _Row {
  line: number;
  fields: Record<CatalogueColumn, string>;
}

function _isVariant(row: _Row): boolean {
  return row.fields.variant_sku.trim() !== "";
}

// one line per product SKU, and per variant SKU within its product
function _checkRepeats(productRows: _Row[], variantRows: _Row[], problems: LineProblem[]): void {
  const products = new Map<string, number>();
  for (const { line, fields } of productRows) {
    const sku = fields.sku.trim();
    const first = products.get(sku);
    if (first === undefined) products.set(sku, line);
    else problems.push({ line, column: "sku", problem: `${sku} is already on line ${first}` });
  }
  const variants = new Map<string, number>();
  for (const { line, fields } of variantRows) {
    const [productSku, sku] = [fields.sku.trim(), fields.variant_sku.trim()];
    if (!isSku(sku)) continue;
    const key = `${productSku}\u0000${sku}`;
    const first = variants.get(key);
    if (first === undefined) variants.set(key, line);
    else {
      problems.push({
        line,
        column: "variant_sku",
        problem: `${sku} of ${productSku} is already on line ${first}`,
      });
    }
  }
}

/**
 * A variant line's `name` and `price` are its product's: empty, or the same as the product's line in this
 * file (spreadsheet exports repeat them). A different value would be an edit that changes nothing. When
 * the product's own name or price is bad, that line's problem is named and the comparison waits for it.
 */
function _checkVariantsAgainstProducts(
  productRows: _Row[],
  variantRows: _Row[],
  problems: LineProblem[],
): void {
  const products = new Map<string, _Row>();
  for (const row of productRows) {
    if (!products.has(row.fields.sku.trim())) products.set(row.fields.sku.trim(), row);
  }
  for (const { line, fields } of variantRows) {
    const product = products.get(fields.sku.trim());
    const where = product
      ? `the product's line ${product.line}`
      : "the product's line (there is none in this file)";
    const rawName = fields.name.trim();
    if (rawName !== "") {
      const name = checkSellerName(fields.name, MAX_CATALOGUE_NAME_LENGTH);
      const productName = product ? checkSellerName(product.fields.name, MAX_CATALOGUE_NAME_LENGTH) : null;
      if (
        !(productName && !productName.ok) && !(name.ok && productName?.ok && name.text === productName.text)
      ) {
        problems.push({ line, column: "name", problem: `must be empty or as on ${where}` });
      }
    }
    const rawPrice = fields.price.trim();
    if (rawPrice !== "") {
      const productPrice = product ? parseRupees(product.fields.price.trim()) : undefined;
      if (productPrice !== null && !(product && parseRupees(rawPrice) === productPrice)) {
        problems.push({
          line,
          column: "price",
          problem: `must be empty or as on ${where}; a variant's own price goes in variant_price`,
        });
      }
    }
  }
}
