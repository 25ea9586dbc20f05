/**
 * `deno task catalogue:import`'s database half (contract, "Going live"): the same file twice changes
 * nothing, an edited file updates prices and stock in place, a file naming what the store lacks writes
 * nothing, and products missing from the file are left alone. On PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { type CatalogueFileResult, describeLineProblem, readCatalogueFile } from "../local/catalogue_file.ts";
import { CatalogueImportError, importCatalogue } from "../local/catalogue_import.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import type { SqlDatabase } from "../local/sql_database.ts";

const SAMPLE = await Deno.readTextFile(new URL("../docs/catalogue-sample.csv", import.meta.url));

function fileOf(text: string): CatalogueFileResult {
  const read = readCatalogueFile(text);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  return read;
}

/** The store's catalogue rows with an SKU, as `sku[/variant sku] name price stock active`. */
async function catalogue(db: SqlDatabase, storeId: string): Promise<string[]> {
  const rows = await db.query<{ line: string }>(
    `select concat_ws(' ', p.sku, p.name, p.price::text, coalesce(p.stock_quantity::text, '-'), p.is_active::text)
       as line, p.sku as sort1, '' as sort2
     from public.products p where p.store_id = $1 and p.sku is not null
     union all
     select concat_ws(' ', p.sku || '/' || v.sku, v.name, coalesce(v.price::text, '-'),
       coalesce(v.stock_quantity::text, '-'), v.is_active::text), p.sku, v.sku
     from public.product_variants v join public.products p on p.id = v.product_id
     where p.store_id = $1 and v.sku is not null
     order by 2, 3`,
    [storeId],
  );
  return rows.map((row) => row.line);
}

async function newStore(db: SqlDatabase): Promise<string> {
  const [{ id }] = await db.query<{ id: string }>(
    "insert into public.stores (name, owner_email) values ('Import Test', 'owner@example.com') returning id::text",
  );
  return id;
}

const SAMPLE_CATALOGUE = [
  "ASSAM-250 Assam Tea 250 g 349.00 - true",
  'GIFT-BOX Gift Box: Assam, Masala & a "Chai & Co." Tumbler 899.00 25 true',
  "MASALA-100 Masala Chai Mix 100 g 199.50 - true",
  "TUMBLER Steel Tumbler 250.00 - true",
  "TUMBLER/TUMBLER-L Large 400 ml 299.00 - true",
  "TUMBLER/TUMBLER-S Small 200 ml - - true",
];

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("importCatalogue() of the same file twice inserts once, then changes nothing", async () => {
    const storeId = await newStore(db);
    assert.deepEqual(await importCatalogue(db, storeId, fileOf(SAMPLE)), {
      products: { inserted: 4, updated: 0, unchanged: 0 },
      variants: { inserted: 2, updated: 0, unchanged: 0 },
    });
    const [{ at }] = await db.query<{ at: string }>(
      "select max(updated_at)::text as at from public.products where store_id = $1",
      [storeId],
    );
    assert.deepEqual(await importCatalogue(db, storeId, fileOf(SAMPLE)), {
      products: { inserted: 0, updated: 0, unchanged: 4 },
      variants: { inserted: 0, updated: 0, unchanged: 2 },
    });
    assert.deepEqual(await catalogue(db, storeId), SAMPLE_CATALOGUE);
    const [{ again }] = await db.query<{ again: string }>(
      "select max(updated_at)::text as again from public.products where store_id = $1",
      [storeId],
    );
    assert.equal(again, at, "no row was written the second time");
  });

  test("importCatalogue() of an edited file updates prices, stock and activity in place, and leaves products it does not name alone", async () => {
    const storeId = await newStore(db);
    await importCatalogue(db, storeId, fileOf(SAMPLE));
    const [{ ids }] = await db.query<{ ids: string }>(
      "select string_agg(id::text, ',' order by sku) as ids from public.products where store_id = $1",
      [storeId],
    );
    const edited = [
      "sku,name,price,variant_sku,variant_name,variant_price,stock,active",
      "ASSAM-250,Assam Tea 250 g,379.00,,,,40,true",
      "TUMBLER,Steel Tumbler,250.00,,,,,true",
      "TUMBLER,,,TUMBLER-S,Small 200 ml,240.00,12,true",
      "TUMBLER,,,TUMBLER-L,Large 400 ml,299.00,,false",
      "TUMBLER,,,TUMBLER-XL,Extra Large 600 ml,349.00,5,",
    ].join("\n");
    assert.deepEqual(await importCatalogue(db, storeId, fileOf(edited)), {
      products: { inserted: 0, updated: 1, unchanged: 1 },
      variants: { inserted: 1, updated: 2, unchanged: 0 },
    });
    assert.deepEqual(await catalogue(db, storeId), [
      "ASSAM-250 Assam Tea 250 g 379.00 40 true",
      'GIFT-BOX Gift Box: Assam, Masala & a "Chai & Co." Tumbler 899.00 25 true',
      "MASALA-100 Masala Chai Mix 100 g 199.50 - true",
      "TUMBLER Steel Tumbler 250.00 - true",
      "TUMBLER/TUMBLER-L Large 400 ml 299.00 - false",
      "TUMBLER/TUMBLER-S Small 200 ml 240.00 12 true",
      "TUMBLER/TUMBLER-XL Extra Large 600 ml 349.00 5 true",
    ]);
    const [{ now }] = await db.query<{ now: string }>(
      "select string_agg(id::text, ',' order by sku) as now from public.products where store_id = $1",
      [storeId],
    );
    assert.equal(now, ids, "the same rows, updated in place");
  });

  test("importCatalogue() of a file whose variant names a product the store lacks writes nothing and names each such line", async () => {
    const storeId = await newStore(db);
    const text = SAMPLE + "MUG,,,MUG-S,Small mug,,,\nPOT,,,POT-1,Teapot,,,\n";
    await assert.rejects(importCatalogue(db, storeId, fileOf(text)), (error: unknown) => {
      assert.ok(error instanceof CatalogueImportError);
      assert.deepEqual(error.problems.map((p) => [p.line, p.column]), [[8, "sku"], [9, "sku"]]);
      return true;
    });
    assert.deepEqual(await catalogue(db, storeId), []);
  });

  test("importCatalogue() names a bad line and a variant whose product the store lacks in one run, and writes nothing", async () => {
    const storeId = await newStore(db);
    const read = readCatalogueFile(
      "sku,name,price,variant_sku,variant_name,variant_price,stock,active\n" +
        "P1,Ok,1.00,,,,,yes\nNOPE,,,V1,Orphan variant,10.00,,true\nP2,Fine,2.00,,,,,\n",
    );
    await assert.rejects(importCatalogue(db, storeId, read), (error: unknown) => {
      assert.ok(error instanceof CatalogueImportError);
      assert.deepEqual(error.problems.map(describeLineProblem), [
        'line 2, active: must be true, false or empty (true): got "yes"',
        "line 3, sku: no product NOPE: neither a product line of this file nor a product of the store",
      ]);
      return true;
    });
    assert.deepEqual(await catalogue(db, storeId), []);
  });

  test("importCatalogue() into a store that does not exist writes nothing and says so", async () => {
    const missing = crypto.randomUUID();
    await assert.rejects(importCatalogue(db, missing, fileOf(SAMPLE)), {
      name: "CatalogueImportError",
      message: `no store has the id ${missing}: deno task store:add prints a store's id`,
    });
    const [{ count }] = await db.query<{ count: number }>(
      "select count(*)::int as count from public.products where store_id = $1",
      [missing],
    );
    assert.equal(count, 0);
  });

  test("importCatalogue() adds variants to a product of the store that the file does not list, and matches SKUs per store", async () => {
    const first = await newStore(db);
    const second = await newStore(db);
    await importCatalogue(db, first, fileOf(SAMPLE));
    const variantsOnly = [
      "sku,name,price,variant_sku,variant_name,variant_price,stock,active",
      "GIFT-BOX,,,GIFT-BOX-RED,Red ribbon,,5,true",
    ].join("\n");
    assert.deepEqual(await importCatalogue(db, first, fileOf(variantsOnly)), {
      products: { inserted: 0, updated: 0, unchanged: 0 },
      variants: { inserted: 1, updated: 0, unchanged: 0 },
    });
    // the same SKUs in another store are that store's own rows
    assert.deepEqual((await importCatalogue(db, second, fileOf(SAMPLE))).products.inserted, 4);
  });

  test("the catalogue refuses a second product with one SKU in a store, even written without the import", async () => {
    const store = await createTestStore(db);
    await db.query("update public.products set sku = 'DUP' where id = $1", [store.products[0].id]);
    await assert.rejects(
      db.query("update public.products set sku = 'DUP' where id = $1", [store.products[1].id]),
      /products_store_id_sku_key/,
    );
    await assert.rejects(
      db.query("update public.products set sku = 'with space' where id = $1", [store.products[1].id]),
      /products_sku_shape/,
    );
  });
}
