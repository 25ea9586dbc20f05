/**
 * A large catalogue:import beside a shop that keeps selling: the import writes in short transactions, so an
 * order never waits on it for longer than one of them. An order whose rows the import updated early must
 * not wait for the whole import (create_order gives up at its deadline with 55P03, the buyer's 500).
 * PostgreSQL only: PGlite runs one transaction at a time, so nothing there waits on a row lock.
 */
import assert from "node:assert/strict";
import { readCatalogueFile } from "../local/catalogue_file.ts";
import { importCatalogue } from "../local/catalogue_import.ts";
import { callCreateOrder, createOrderPayload, payloadItem } from "./support/create_order_payload.ts";
import { sharedPostgres } from "./support/databases.ts";

const db = await sharedPostgres();
const PRODUCTS = 5_000;
const VARIANTS_PER_PRODUCT = 3;

/** A catalogue of PRODUCTS products with VARIANTS_PER_PRODUCT variants each, every row's stock `stock`. */
function catalogue(stock: number): string {
  const lines = ["sku,name,price,variant_sku,variant_name,variant_price,stock,active"];
  for (let p = 0; p < PRODUCTS; p++) {
    const sku = `P${String(p).padStart(5, "0")}`;
    lines.push(`${sku},Product ${p},100.00,,,,${stock},true`);
    for (let v = 0; v < VARIANTS_PER_PRODUCT; v++) {
      lines.push(`${sku},,,${sku}-${v},Size ${v},,${stock},true`);
    }
  }
  return lines.join("\n") + "\n";
}

Deno.test({
  name:
    "[postgres] importCatalogue() of a large file never keeps an order waiting for a row it updated: every order placed while it runs is taken within a short deadline",
  ignore: !db,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const [{ id: storeId }] = await db!.query<{ id: string }>(
      "insert into public.stores (name, owner_email) values ('Big Catalogue', 'owner@big.example') returning id::text",
    );
    const first = readCatalogueFile(catalogue(1_000));
    assert.ok(first.ok);
    await importCatalogue(db!, storeId, first);
    // the rows the import updates first: the product with the smallest id, and its first variant
    const [target] = await db!.query<{ product_id: string; variant_id: string }>(
      `select p.id::text as product_id, v.id::text as variant_id
       from public.products p join public.product_variants v on v.product_id = p.id
       where p.store_id = $1 order by p.id, v.id limit 1`,
      [storeId],
    );

    const second = readCatalogueFile(catalogue(2_000)); // every stock changed: every row is updated
    assert.ok(second.ok);
    let importing = true;
    const started = performance.now();
    const run = importCatalogue(db!, storeId, second).finally(() => importing = false);
    const orders: { ms: number; error?: string }[] = [];
    while (importing) {
      const at = performance.now();
      try {
        await callCreateOrder(db!, {
          ...createOrderPayload({ storeId, products: [] }, {
            items: [payloadItem(target.product_id, 10_000, { variantId: target.variant_id })],
          }),
          // shorter than the function's 6 s, so that the test stays short: a wait for the whole import fails it
          deadline: new Date(Date.now() + 1_500).toISOString(),
        });
        orders.push({ ms: performance.now() - at });
      } catch (error) {
        orders.push({ ms: performance.now() - at, error: `${(error as { code?: string }).code} ${error}` });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const report = await run;
    const importMs = performance.now() - started;
    assert.deepEqual(report.variants, {
      inserted: 0,
      updated: PRODUCTS * VARIANTS_PER_PRODUCT,
      unchanged: 0,
    });
    assert.ok(
      orders.length >= 5,
      `only ${orders.length} orders during an import of ${Math.round(importMs)} ms`,
    );
    assert.deepEqual(orders.filter((order) => order.error), [], "no order was refused");
    const [{ stock }] = await db!.query<{ stock: number }>(
      "select stock_quantity as stock from public.product_variants where id = $1",
      [target.variant_id],
    );
    // the import set the seller's new count once; the orders after it each took one
    assert.ok(
      stock <= 2_000 && stock >= 2_000 - orders.length,
      `stock ${stock} after ${orders.length} orders`,
    );
  },
});
