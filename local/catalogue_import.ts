/**
 * Upserts a store's catalogue from a read catalogue file (contract, "Going live"). First it reads the
 * store's rows with the file's SKUs and plans every write (catalogue_plan.ts): a file with any problem, its
 * own or against the store, writes nothing. Then it writes in short transactions of at most
 * {@linkcode CHUNK_ROWS} rows, one set-based statement per kind of row, so that no order waits on the
 * import for longer than one such transaction, however large the file: inserts first, then updates, whose
 * rows each transaction locks in the order every writer of stock rows takes them (product id, variant id,
 * a product's own row first), so an import never deadlocks with orders or cancellations. A crash between
 * two transactions leaves a prefix of the writes; the import is idempotent, so running it again completes
 * it. Two imports of one store run one after the other (a session-level advisory lock).
 */
import type { SqlConnection, SqlDatabase, SqlSession } from "./sql_database.ts";
import type { CatalogueFileResult, LineProblem } from "./catalogue_file.ts";
import { sortProblems } from "./catalogue_file.ts";
import {
  type CatalogueRow,
  type ImportPlan,
  type PlanCounts,
  planImport,
  type RowUpdate,
  type VariantRow,
} from "./catalogue_plan.ts";

/** What an import did to one kind of row. */
export type ImportCounts = PlanCounts;

/** What an import did. */
export interface ImportReport {
  products: ImportCounts;
  variants: ImportCounts;
}

/** The import wrote nothing (or, past its plan, only a prefix): the reason, and any lines at fault. */
export class CatalogueImportError extends Error {
  constructor(message: string, readonly problems: LineProblem[] = []) {
    super(message);
    this.name = "CatalogueImportError";
  }
}

/** The most rows one write transaction holds: a few milliseconds of locks on PostgreSQL. */
export const CHUNK_ROWS = 500;

/** How long one transaction of the import waits for a row an order holds, before it tries again. */
const LOCK_TIMEOUT = "2s";
const LOCK_ATTEMPTS = 5;

/**
 * Imports `read` into the store `storeId` (a UUID); throws {@linkcode CatalogueImportError} for a store
 * that does not exist, a file with problems, or rows that stay locked.
 */
export async function importCatalogue(
  db: SqlDatabase,
  storeId: string,
  read: CatalogueFileResult,
): Promise<ImportReport> {
  return await db.withConnection(async (connection) => {
    // released when the import ends, or when its connection does (a crashed task's)
    await connection.query("select pg_advisory_lock(hashtextextended('catalogue:import ' || $1::text, 0))", [
      storeId,
    ]);
    try {
      const plan = await _plan(connection, storeId, read);
      if (plan.problems.length > 0) {
        throw new CatalogueImportError("the file has problems", sortProblems(plan.problems));
      }
      await _write(connection, storeId, plan);
      return { products: plan.products, variants: plan.variants };
    } finally {
      await connection.query(
        "select pg_advisory_unlock(hashtextextended('catalogue:import ' || $1::text, 0))",
        [storeId],
      );
    }
  });
}

async function _plan(db: SqlSession, storeId: string, read: CatalogueFileResult): Promise<ImportPlan> {
  const stores = await db.query("select 1 from public.stores where id = $1::uuid", [storeId]);
  if (stores.length === 0) {
    throw new CatalogueImportError(`no store has the id ${storeId}: deno task store:add prints a store's id`);
  }
  const skus = [...new Set([...read.productSkus, ...read.productReferences.map((r) => r.productSku)])];
  const products = await db.query<CatalogueRow>(
    `select id::text, sku, name, price::text as price, stock_quantity, imported_stock, is_active
     from public.products
     where store_id = $1::uuid and sku in (select jsonb_array_elements_text($2::text::jsonb))`,
    [storeId, JSON.stringify(skus)],
  );
  const variants = await db.query<VariantRow>(
    `select id::text, product_id::text, sku, name, price::text as price, stock_quantity, imported_stock,
       is_active
     from public.product_variants
     where product_id in (select (jsonb_array_elements_text($1::text::jsonb))::uuid) and sku is not null`,
    [JSON.stringify(products.map((row) => row.id))],
  );
  return planImport(
    read,
    new Map(products.map((row) => [row.sku, row])),
    new Map(variants.map((row) => [`${row.product_id} ${row.sku}`, row])),
  );
}

function _chunks<T>(items: T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK_ROWS) chunks.push(items.slice(i, i + CHUNK_ROWS));
  return chunks;
}

async function _write(connection: SqlConnection, storeId: string, plan: ImportPlan): Promise<void> {
  const productIds = new Map<string, string>();
  for (const chunk of _chunks(plan.newProducts)) {
    const rows = await _transaction(connection, (tx) =>
      tx.query<{ id: string; sku: string }>(
        `insert into public.products (store_id, sku, name, price, is_active, stock_quantity, imported_stock)
         select $1::uuid, r.sku, r.name, r.price, r.active, r.stock, r.stock
         from jsonb_to_recordset($2::text::jsonb)
           as r(sku text, name text, price numeric, active boolean, stock integer)
         returning id::text, sku`,
        [storeId, JSON.stringify(chunk)],
      ));
    for (const row of rows) productIds.set(row.sku, row.id);
  }
  const newVariants = plan.newVariants.map((variant) => ({
    ...variant,
    productId: variant.productId ?? productIds.get(variant.productSku)!,
  }));
  for (const chunk of _chunks(newVariants)) {
    await _transaction(connection, (tx) =>
      tx.query(
        `insert into public.product_variants
           (product_id, sku, name, price, is_active, stock_quantity, imported_stock)
         select r."productId", r.sku, r.name, r.price, r.active, r.stock, r.stock
         from jsonb_to_recordset($1::text::jsonb)
           as r("productId" uuid, sku text, name text, price numeric, active boolean, stock integer)`,
        [JSON.stringify(chunk)],
      ));
  }
  for (const chunk of _chunks(plan.updates)) await _transaction(connection, (tx) => _update(tx, chunk));
}

// one chunk of updates: its rows locked one by one in the chunk's (lock) order, then written set-based
async function _update(tx: SqlSession, chunk: RowUpdate[]): Promise<void> {
  await tx.query(
    `select count(case when k.variant_id is null
       then (select 1 from public.products p where p.id = k.product_id for no key update)
       else (select 1 from public.product_variants v where v.id = k.variant_id for no key update) end)
     from jsonb_to_recordset($1::text::jsonb) as k(product_id uuid, variant_id uuid)`,
    [JSON.stringify(chunk.map((u) => ({ product_id: u.productId, variant_id: u.variantId })))],
  );
  const rows = (variants: boolean) =>
    JSON.stringify(
      chunk.filter((u) => (u.variantId !== null) === variants)
        .map((u) => ({ id: u.variantId ?? u.productId, ...u.values })),
    );
  for (const table of ["products", "product_variants"] as const) {
    await tx.query(
      `update public.${table} t set name = r.name, price = r.price, is_active = r.active,
         stock_quantity = case when r."setStock" then r.stock else t.stock_quantity end,
         imported_stock = case when r."setStock" then r.stock else t.imported_stock end
       from jsonb_to_recordset($1::text::jsonb)
         as r(id uuid, name text, price numeric, active boolean, "setStock" boolean, stock integer)
       where t.id = r.id`,
      [rows(table === "product_variants")],
    );
  }
}

/**
 * One write transaction that waits at most {@linkcode LOCK_TIMEOUT} for a row another transaction holds
 * (an order takes its stock rows for milliseconds; a session left open in the SQL editor may hold one for
 * good): it then rolls back, releasing what it held, and tries again a few times before giving up.
 */
async function _transaction<T>(connection: SqlConnection, work: (tx: SqlSession) => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await connection.transaction(async (tx) => {
        await tx.query(`select set_config('lock_timeout', '${LOCK_TIMEOUT}', true)`);
        return await work(tx);
      });
    } catch (error) {
      if ((error as { code?: string }).code !== "55P03") throw error;
      if (attempt === LOCK_ATTEMPTS) {
        throw new CatalogueImportError(
          `rows of the store stayed locked by another transaction (${LOCK_ATTEMPTS} waits of ${LOCK_TIMEOUT}): ` +
            "what was written before them stays (a prefix of the import); run the import again once that " +
            "transaction has ended, and it completes the rest",
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
