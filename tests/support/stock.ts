/** Stock of catalogue rows in a test database: set it, read it back. */
import type { SqlDatabase } from "../../local/sql_database.ts";

/** A product's or a variant's stock row. */
export type StockRow = { productId: string } | { variantId: string };

function _table(row: StockRow): { table: string; id: string } {
  return "variantId" in row
    ? { table: "product_variants", id: row.variantId }
    : { table: "products", id: row.productId };
}

/** Sets the stock of `row` (null: not tracked), as the seller (or a dashboard) would. */
export async function setStock(db: SqlDatabase, row: StockRow, quantity: number | null): Promise<void> {
  const { table, id } = _table(row);
  await db.query(`update public.${table} set stock_quantity = $2 where id = $1`, [id, quantity]);
}

/** The stock of each row, in the order given. */
export async function stockOf(db: SqlDatabase, ...rows: StockRow[]): Promise<(number | null)[]> {
  const values: (number | null)[] = [];
  for (const row of rows) {
    const { table, id } = _table(row);
    const [found] = await db.query<{ stock_quantity: number | null }>(
      `select stock_quantity from public.${table} where id = $1`,
      [id],
    );
    values.push(found.stock_quantity);
  }
  return values;
}
