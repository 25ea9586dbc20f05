/**
 * What an import will write, decided before anything is written: the file's lines against the store's rows
 * with the same SKUs. A line without a row is inserted; a line whose row differs is updated; the rest is
 * unchanged. Stock follows the seller's count, not the last file: a row's stock is set only when the file's
 * `stock` differs from the value the last import set (`imported_stock`), so the same file after sales
 * leaves what was sold sold. Pure.
 */
import type {
  CatalogueFile,
  CatalogueFileResult,
  LineProblem,
  ProductLine,
  VariantLine,
} from "./catalogue_file.ts";
import { parseRupees } from "./catalogue_file.ts";

/** A catalogue row as the import reads it. */
export interface CatalogueRow {
  id: string;
  sku: string;
  name: string;
  price: string | null;
  stock_quantity: number | null;
  imported_stock: number | null;
  is_active: boolean;
}

/** A variant row, with its product. */
export interface VariantRow extends CatalogueRow {
  product_id: string;
}

/** The values an insert or update writes; `stock` only when `setStock`. */
export interface RowValues {
  name: string;
  price: string | null;
  active: boolean;
  setStock: boolean;
  stock: number | null;
}

/** An update of an existing row: a product's own (variantId null) or one of its variants. */
export interface RowUpdate {
  productId: string;
  variantId: string | null;
  values: RowValues;
}

/** What one kind of row will see. */
export interface PlanCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** The import's writes, or the problems that stop it. */
export interface ImportPlan {
  problems: LineProblem[];
  newProducts: (RowValues & { sku: string })[];
  /** New variants; `productId` null for a variant of a product this import inserts (`productSku`). */
  newVariants: (RowValues & { sku: string; productSku: string; productId: string | null })[];
  /** In the lock order of every writer of stock rows: (product id, variant id), a product's row first. */
  updates: RowUpdate[];
  products: PlanCounts;
  variants: PlanCounts;
}

/** `349.00` from minor units. */
export function minorToDecimal(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
}

function _values(line: ProductLine | VariantLine, row: CatalogueRow | null): RowValues {
  // the file's count is the stock when it is new, or when the seller changed it since the last import
  const setStock = row === null || line.stock !== row.imported_stock;
  return {
    name: line.name,
    price: line.priceMinor === null ? null : minorToDecimal(line.priceMinor),
    active: line.active,
    setStock,
    stock: line.stock,
  };
}

function _unchanged(row: CatalogueRow, line: ProductLine | VariantLine): boolean {
  const price = row.price === null ? null : parseRupees(row.price);
  return row.name === line.name && price === line.priceMinor && row.is_active === line.active &&
    row.imported_stock === line.stock;
}

/** Orders updates as every writer takes stock rows: by product id, the product's own row before its variants'. */
export function inLockOrder(updates: RowUpdate[]): RowUpdate[] {
  const key = (u: RowUpdate) => `${u.productId} ${u.variantId ?? ""}`;
  return updates.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Plans the import of `read` (its file and its references, good lines or bad) against the store's
 * `products` (by SKU) and their `variants` (by `<product id> <variant sku>`). Every problem of the file
 * and every variant line whose product is neither a product line of the file nor a product of the store
 * are in `problems`: the import writes only a plan without any.
 */
export function planImport(
  read: CatalogueFileResult,
  products: ReadonlyMap<string, CatalogueRow>,
  variants: ReadonlyMap<string, VariantRow>,
): ImportPlan {
  const orphans = read.productReferences
    .filter((reference) => !read.productSkus.has(reference.productSku) && !products.has(reference.productSku))
    .map((reference): LineProblem => ({
      line: reference.line,
      column: "sku",
      problem:
        `no product ${reference.productSku}: neither a product line of this file nor a product of the store`,
    }));
  const plan: ImportPlan = {
    problems: [...read.problems, ...orphans],
    newProducts: [],
    newVariants: [],
    updates: [],
    products: { inserted: 0, updated: 0, unchanged: 0 },
    variants: { inserted: 0, updated: 0, unchanged: 0 },
  };
  _planRows(read.file, products, variants, plan);
  inLockOrder(plan.updates);
  return plan;
}

function _planRows(
  file: CatalogueFile,
  products: ReadonlyMap<string, CatalogueRow>,
  variants: ReadonlyMap<string, VariantRow>,
  plan: ImportPlan,
): void {
  for (const line of file.products) {
    const row = products.get(line.sku) ?? null;
    if (!row) {
      plan.newProducts.push({ sku: line.sku, ..._values(line, null) });
      plan.products.inserted++;
    } else if (_unchanged(row, line)) plan.products.unchanged++;
    else {
      plan.updates.push({ productId: row.id, variantId: null, values: _values(line, row) });
      plan.products.updated++;
    }
  }
  for (const line of file.variants) {
    const productId = products.get(line.productSku)?.id ?? null;
    const row = productId === null ? null : variants.get(`${productId} ${line.sku}`) ?? null;
    if (!row) {
      plan.newVariants.push({
        sku: line.sku,
        productSku: line.productSku,
        productId,
        ..._values(line, null),
      });
      plan.variants.inserted++;
    } else if (_unchanged(row, line)) plan.variants.unchanged++;
    else {
      plan.updates.push({ productId: row.product_id, variantId: row.id, values: _values(line, row) });
      plan.variants.updated++;
    }
  }
}
