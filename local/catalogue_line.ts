/**
 * One line of a catalogue file (see `catalogue_file.ts`): its columns, and the checks of each field, every
 * problem recorded with its line and column. Pure.
 */
import { MAX_AMOUNT_MINOR } from "../supabase/functions/_shared/orders/money.ts";
import { checkSellerName } from "./seller_text.ts";

/** The header, column by column, as the file must start. */
export const CATALOGUE_COLUMNS = [
  "sku",
  "name",
  "price",
  "variant_sku",
  "variant_name",
  "variant_price",
  "stock",
  "active",
] as const;

/** A column of the file. */
export type CatalogueColumn = typeof CATALOGUE_COLUMNS[number];

/** The longest product or variant name in characters: the catalogue's own check (`length(name)`, 1-200). */
export const MAX_CATALOGUE_NAME_LENGTH = 200;

/** The largest stock a row holds (PostgreSQL's integer). */
export const MAX_STOCK = 2_147_483_647;

/** An SKU as the catalogue stores it (the products_sku_shape check of the SKU migration). */
const SKU = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$/;

/** Whether `raw` (trimmed) is an SKU as the catalogue stores it. */
export function isSku(raw: string): boolean {
  return SKU.test(raw);
}
const RUPEES = /^(\d{1,10})(?:\.(\d{1,2}))?$/;
const WHOLE = /^\d{1,10}$/;

/** A product line. */
export interface ProductLine {
  line: number;
  sku: string;
  name: string;
  priceMinor: number;
  /** null: stock not tracked. */
  stock: number | null;
  active: boolean;
}

/** A variant line: `productSku` is the `sku` column, `sku` the `variant_sku` one. */
export interface VariantLine {
  line: number;
  productSku: string;
  sku: string;
  name: string;
  /** null: the variant sells at its product's price. */
  priceMinor: number | null;
  stock: number | null;
  active: boolean;
}

/** What is wrong, where: `column` is null for a problem of the whole line. */
export interface LineProblem {
  line: number;
  column: CatalogueColumn | null;
  problem: string;
}

/**
 * Reads an amount such as `349.00` (no sign, no currency, no thousands separator) in minor units
 * (hundredths: paise for rupees).
 */
export function parseRupees(raw: string): number | null {
  const match = RUPEES.exec(raw);
  if (!match) return null;
  const minor = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return minor <= MAX_AMOUNT_MINOR ? minor : null;
}

/**
 * Reads the fields of one line into `problems`; a method returns null when any field had a problem.
 * `unit` names the store's money in messages ("rupees", or a currency code).
 */
export class LineReader {
  #found = 0;
  constructor(
    readonly line: number,
    readonly row: Record<CatalogueColumn, string>,
    readonly problems: LineProblem[],
    readonly unit = "rupees",
  ) {}

  product(): ProductLine | null {
    const sku = this.#sku("sku");
    const name = this.#name("name");
    const priceMinor = this.#price("price", false);
    for (const column of ["variant_name", "variant_price"] as const) {
      if (this.row[column].trim() !== "") {
        this.#problem(column, "is only for a variant line (one with a variant_sku)");
      }
    }
    const stock = this.#stock();
    const active = this.#active();
    if (this.#found > 0) return null;
    return { line: this.line, sku: sku!, name: name!, priceMinor: priceMinor!, stock, active: active! };
  }

  variant(): VariantLine | null {
    const productSku = this.#sku("sku");
    const sku = this.#sku("variant_sku");
    const name = this.#name("variant_name");
    const priceMinor = this.#price("variant_price", true);
    const stock = this.#stock();
    const active = this.#active();
    if (this.#found > 0) return null;
    return {
      line: this.line,
      productSku: productSku!,
      sku: sku!,
      name: name!,
      priceMinor,
      stock,
      active: active!,
    };
  }

  #problem(column: CatalogueColumn, problem: string): void {
    this.#found++;
    this.problems.push({ line: this.line, column, problem });
  }

  #sku(column: "sku" | "variant_sku"): string | null {
    const raw = this.row[column].trim();
    if (raw === "") {
      this.#problem(column, "is required");
      return null;
    }
    if (!SKU.test(raw)) {
      this.#problem(
        column,
        `must be 1-64 letters, digits and . _ / - (starting with a letter or digit): got ${
          JSON.stringify(raw)
        }`,
      );
      return null;
    }
    return raw;
  }

  #name(column: "name" | "variant_name"): string | null {
    const result = checkSellerName(this.row[column], MAX_CATALOGUE_NAME_LENGTH);
    if (result.ok) return result.text;
    this.#problem(column, result.problem === "must not be empty" ? "is required" : result.problem);
    return null;
  }

  #price(column: "price" | "variant_price", optional: boolean): number | null {
    const raw = this.row[column].trim();
    if (raw === "" && optional) return null;
    const minor = parseRupees(raw);
    if (minor === null) {
      this.#problem(
        column,
        raw === ""
          ? "is required"
          : `must be an amount in ${this.unit} such as 349.00 (digits, at most 2 decimals, no currency sign or thousands separator): got ${
            JSON.stringify(raw)
          }`,
      );
    }
    return minor;
  }

  #stock(): number | null {
    const raw = this.row.stock.trim();
    if (raw === "") return null;
    if (WHOLE.test(raw) && Number(raw) <= MAX_STOCK) return Number(raw);
    this.#problem(
      "stock",
      `must be a whole number from 0 to ${MAX_STOCK}, or empty (not tracked): got ${JSON.stringify(raw)}`,
    );
    return null;
  }

  #active(): boolean | null {
    // spreadsheets write TRUE and FALSE
    const raw = this.row.active.trim().toLowerCase();
    if (raw === "" || raw === "true") return true;
    if (raw === "false") return false;
    this.#problem(
      "active",
      `must be true, false or empty (true): got ${JSON.stringify(this.row.active.trim())}`,
    );
    return null;
  }
}
