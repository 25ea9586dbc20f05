/**
 * catalogue:import and stock that orders take (contract, "Going live": the same file twice changes nothing,
 * an edited file updates stock in place). A file's `stock` is the count the seller wrote: the import sets
 * it only when it differs from what the last import set, so units sold since stay sold. With real orders
 * (create_order) and a real cancellation (the restock trigger), on PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { readCatalogueFile } from "../local/catalogue_file.ts";
import { importCatalogue } from "../local/catalogue_import.ts";
import { callCreateOrder, createOrderPayload, payloadItem } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import type { SqlDatabase } from "../local/sql_database.ts";

const SAMPLE = await Deno.readTextFile(new URL("../docs/catalogue-sample.csv", import.meta.url));
const EDITED = SAMPLE.replace(",899.00,,,,25,true", ",899.00,,,,40,true");

function readOf(text: string) {
  const read = readCatalogueFile(text);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  return read;
}

async function newStore(db: SqlDatabase): Promise<string> {
  const [{ id }] = await db.query<{ id: string }>(
    "insert into public.stores (name, owner_email) values ('Stock Test', 'owner@example.com') returning id::text",
  );
  return id;
}

async function giftBox(db: SqlDatabase, storeId: string): Promise<{ id: string; stock: number }> {
  const [row] = await db.query<{ id: string; stock: number }>(
    "select id::text, stock_quantity as stock from public.products where store_id = $1 and sku = 'GIFT-BOX'",
    [storeId],
  );
  return row;
}

/** Orders `quantity` gift boxes through create_order; returns the order's id. */
async function sell(db: SqlDatabase, storeId: string, quantity: number): Promise<string> {
  const { id } = await giftBox(db, storeId);
  const payload = createOrderPayload(
    { storeId, products: [] },
    { items: [payloadItem(id, 89_900, { quantity })] },
  );
  const result = await callCreateOrder(db, payload);
  return result.response.orderId;
}

async function cancel(db: SqlDatabase, orderId: string): Promise<void> {
  // the tables' owner, as the seller's back office would: the restock trigger puts the units back
  await db.asRole(
    "postgres",
    (s) => s.query("update public.orders set status = 'cancelled' where id = $1", [orderId]),
  );
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("importCatalogue() of the same file after a sale leaves the stock as sold and reports the row unchanged; a cancellation then restocks from there", async () => {
    const storeId = await newStore(db);
    await importCatalogue(db, storeId, readOf(SAMPLE));
    const orderId = await sell(db, storeId, 5);
    assert.equal((await giftBox(db, storeId)).stock, 20);
    assert.deepEqual(await importCatalogue(db, storeId, readOf(SAMPLE)), {
      products: { inserted: 0, updated: 0, unchanged: 4 },
      variants: { inserted: 0, updated: 0, unchanged: 2 },
    });
    assert.equal((await giftBox(db, storeId)).stock, 20, "the 5 sold stay sold");
    await cancel(db, orderId);
    assert.equal((await giftBox(db, storeId)).stock, 25, "the cancellation returns the 5, no more");
  });

  test("importCatalogue() of a file whose stock the seller changed sets the stock to the file's value, sales or not; that file again changes nothing", async () => {
    const storeId = await newStore(db);
    await importCatalogue(db, storeId, readOf(SAMPLE));
    await sell(db, storeId, 5);
    assert.deepEqual(await importCatalogue(db, storeId, readOf(EDITED)), {
      products: { inserted: 0, updated: 1, unchanged: 3 },
      variants: { inserted: 0, updated: 0, unchanged: 2 },
    });
    assert.equal((await giftBox(db, storeId)).stock, 40, "the seller's new count is the stock");
    await sell(db, storeId, 2);
    assert.deepEqual((await importCatalogue(db, storeId, readOf(EDITED))).products, {
      inserted: 0,
      updated: 0,
      unchanged: 4,
    });
    assert.equal((await giftBox(db, storeId)).stock, 38);
    // an empty stock in the file stops tracking it
    const untracked = SAMPLE.replace(",899.00,,,,25,true", ",899.00,,,,,true");
    assert.equal((await importCatalogue(db, storeId, readOf(untracked))).products.updated, 1);
    assert.equal((await giftBox(db, storeId)).stock, null);
  });

  test("importCatalogue() of a price change with the same stock updates the price and leaves the stock as sold", async () => {
    const storeId = await newStore(db);
    await importCatalogue(db, storeId, readOf(SAMPLE));
    await sell(db, storeId, 3);
    const repriced = SAMPLE.replace(",899.00,,,,25,", ",949.00,,,,25,");
    assert.deepEqual((await importCatalogue(db, storeId, readOf(repriced))).products.updated, 1);
    const [row] = await db.query<{ price: string; stock: number; imported: number }>(
      `select price::text, stock_quantity as stock, imported_stock as imported from public.products
       where store_id = $1 and sku = 'GIFT-BOX'`,
      [storeId],
    );
    assert.deepEqual(row, { price: "949.00", stock: 22, imported: 25 });
  });
}
