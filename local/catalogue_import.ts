/**
 * Upserts a store's catalogue from a checked catalogue file, in one transaction: products and variants are
 * matched by SKU (products within the store, variants within their product), new ones are inserted,
 * changed ones updated in place, the rest left as they are, and products the file does not name are not
 * touched. A problem found in the database (a store that does not exist, a variant of a product that is
 * neither in the file nor in the store) writes nothing.
 */
import type { SqlDatabase, SqlSession } from "./sql_database.ts";
import type { CatalogueFile, LineProblem, ProductLine, VariantLine } from "./catalogue_file.ts";
import { parseRupees } from "./catalogue_file.ts";

/** What an import did to one kind of row. */
export interface ImportCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** What an import did. */
export interface ImportReport {
  products: ImportCounts;
  variants: ImportCounts;
}

/** The import wrote nothing: the store is unknown, or lines name what the store does not have. */
export class CatalogueImportError extends Error {
  constructor(message: string, readonly problems: LineProblem[] = []) {
    super(message);
    this.name = "CatalogueImportError";
  }
}

interface _Row {
  id: string;
  sku: string;
  name: string;
  price: string | null;
  stock_quantity: number | null;
  is_active: boolean;
}

interface _VariantRow extends _Row {
  product_id: string;
}

/** An update of one row, in the lock order of every writer of stock rows. */
interface _Update {
  productId: string;
  variantId: string | null;
  values: { name: string; price: string | null; stock: number | null; active: boolean };
}

/** `349.00` from paise. */
function _rupees(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
}

function _same(row: _Row, line: ProductLine | VariantLine): boolean {
  const price = row.price === null ? null : parseRupees(row.price);
  return row.name === line.name && price === line.priceMinor && row.stock_quantity === line.stock &&
    row.is_active === line.active;
}

function _values(line: ProductLine | VariantLine): _Update["values"] {
  return {
    name: line.name,
    price: line.priceMinor === null ? null : _rupees(line.priceMinor),
    stock: line.stock,
    active: line.active,
  };
}

/** Imports `file` into the store `storeId` (a UUID); throws {@linkcode CatalogueImportError} for bad data. */
export async function importCatalogue(
  db: SqlDatabase,
  storeId: string,
  file: CatalogueFile,
): Promise<ImportReport> {
  // a transaction under the role DATABASE_URL connects as (the tables' owner on Supabase): asRole with
  // that role changes nothing but makes one transaction of the whole import
  const [{ role }] = await db.query<{ role: string }>("select current_user::text as role");
  return await db.asRole(role, (session) => _import(session, storeId, file));
}

async function _import(session: SqlSession, storeId: string, file: CatalogueFile): Promise<ImportReport> {
  // two imports of one store run one after the other: the second sees what the first wrote
  await session.query("select pg_advisory_xact_lock(hashtextextended('catalogue:import ' || $1::text, 0))", [
    storeId,
  ]);
  const stores = await session.query("select 1 from public.stores where id = $1::uuid", [storeId]);
  if (stores.length === 0) {
    throw new CatalogueImportError(`no store has the id ${storeId}: deno task store:add prints a store's id`);
  }
  const skus = [...new Set([...file.products.map((p) => p.sku), ...file.variants.map((v) => v.productSku)])];
  const products = new Map(
    (await session.query<_Row>(
      `select id::text, sku, name, price::text as price, stock_quantity, is_active from public.products
       where store_id = $1::uuid and sku in (select jsonb_array_elements_text($2::text::jsonb))`,
      [storeId, JSON.stringify(skus)],
    )).map((row) => [row.sku, row]),
  );
  const problems = file.variants
    .filter((variant) =>
      !products.has(variant.productSku) && !file.products.some((p) => p.sku === variant.productSku)
    )
    .map((variant): LineProblem => ({
      line: variant.line,
      column: "sku",
      problem:
        `no product ${variant.productSku}: neither a product line of this file nor a product of the store`,
    }));
  if (problems.length > 0) {
    throw new CatalogueImportError("the file names products the store does not have", problems);
  }

  const report: ImportReport = {
    products: { inserted: 0, updated: 0, unchanged: 0 },
    variants: { inserted: 0, updated: 0, unchanged: 0 },
  };
  const updates: _Update[] = [];
  const newProducts: ProductLine[] = [];
  for (const line of file.products) {
    const row = products.get(line.sku);
    if (!row) newProducts.push(line);
    else if (_same(row, line)) report.products.unchanged++;
    else updates.push({ productId: row.id, variantId: null, values: _values(line) });
  }
  const productIds = new Map([...products.values()].map((row) => [row.sku, row.id]));
  for (const row of await _insertProducts(session, storeId, newProducts)) productIds.set(row.sku, row.id);
  report.products.inserted = newProducts.length;

  const variants = new Map(
    (await session.query<_VariantRow>(
      `select id::text, product_id::text, sku, name, price::text as price, stock_quantity, is_active
       from public.product_variants where product_id in (select (jsonb_array_elements_text($1::text::jsonb))::uuid)
         and sku is not null`,
      [JSON.stringify([...products.values()].map((row) => row.id))],
    )).map((row) => [`${row.product_id} ${row.sku}`, row]),
  );
  const newVariants: (VariantLine & { productId: string })[] = [];
  for (const line of file.variants) {
    const productId = productIds.get(line.productSku)!;
    const row = variants.get(`${productId} ${line.sku}`);
    if (!row) newVariants.push({ ...line, productId });
    else if (_same(row, line)) report.variants.unchanged++;
    else updates.push({ productId, variantId: row.id, values: _values(line) });
  }
  await _insertVariants(session, newVariants);
  report.variants.inserted = newVariants.length;

  // one row at a time in (product id, variant id) order, the product's own row first: the order in which
  // create_order and the restock of a cancelled order take stock rows, so an import never deadlocks with them
  updates.sort((a, b) =>
    a.productId < b.productId
      ? -1
      : a.productId > b.productId
      ? 1
      : a.variantId === null
      ? -1
      : b.variantId === null
      ? 1
      : a.variantId < b.variantId
      ? -1
      : 1
  );
  for (const update of updates) {
    const { name, price, stock, active } = update.values;
    if (update.variantId === null) {
      await session.query(
        `update public.products set name = $2, price = $3::numeric, stock_quantity = $4::integer, is_active = $5
         where id = $1::uuid`,
        [update.productId, name, price, stock, active],
      );
      report.products.updated++;
    } else {
      await session.query(
        `update public.product_variants set name = $2, price = $3::numeric, stock_quantity = $4::integer,
           is_active = $5
         where id = $1::uuid`,
        [update.variantId, name, price, stock, active],
      );
      report.variants.updated++;
    }
  }
  return report;
}

async function _insertProducts(
  session: SqlSession,
  storeId: string,
  lines: ProductLine[],
): Promise<{ id: string; sku: string }[]> {
  if (lines.length === 0) return [];
  return await session.query<{ id: string; sku: string }>(
    `insert into public.products (store_id, sku, name, price, stock_quantity, is_active)
     select $1::uuid, r.sku, r.name, r.price, r.stock, r.active
     from jsonb_to_recordset($2::text::jsonb) as r(sku text, name text, price numeric, stock integer, active boolean)
     returning id::text, sku`,
    [storeId, JSON.stringify(lines.map((line) => ({ sku: line.sku, ..._values(line) })))],
  );
}

async function _insertVariants(
  session: SqlSession,
  lines: (VariantLine & { productId: string })[],
): Promise<void> {
  if (lines.length === 0) return;
  await session.query(
    `insert into public.product_variants (product_id, sku, name, price, stock_quantity, is_active)
     select r.product_id, r.sku, r.name, r.price, r.stock, r.active
     from jsonb_to_recordset($1::text::jsonb)
       as r(product_id uuid, sku text, name text, price numeric, stock integer, active boolean)`,
    [JSON.stringify(lines.map((line) => ({ product_id: line.productId, sku: line.sku, ..._values(line) })))],
  );
}
