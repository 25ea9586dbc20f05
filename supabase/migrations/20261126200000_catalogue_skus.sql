-- Catalogue SKUs: the seller's own code of each product and variant, by which `deno task catalogue:import`
-- matches the lines of a CSV file to the rows of the catalogue (contract, "Going live"). Importing the same
-- file twice then changes nothing, and an edited file updates prices and stock in place instead of adding
-- products beside the old ones.
--
-- Optional: rows made otherwise (the seed before this, Studio, the service key) may have none, and several
-- rows without one never collide (a unique index treats nulls as distinct). A product's SKU is unique within
-- its store, a variant's within its product: the CSV names a variant by its product's SKU and its own.
-- The shape is what the import accepts: letters and digits, then also . _ / -, at most 64 characters, so an
-- SKU read back from the database is always one the file can name.

alter table public.products add column sku text
  constraint products_sku_shape check (sku ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$');
alter table public.product_variants add column sku text
  constraint product_variants_sku_shape check (sku ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$');

-- the import's lookups of a store's products and of a product's variants by SKU, and no duplicate SKU
create unique index products_store_id_sku_key on public.products (store_id, sku);
create unique index product_variants_product_id_sku_key on public.product_variants (product_id, sku);
