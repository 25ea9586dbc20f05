-- The stock each catalogue row last got from `deno task catalogue:import` (contract, "Going live": importing
-- the same file twice changes nothing; an edited file updates stock in place).
--
-- A row's stock_quantity is what is left to sell: orders take from it and cancellations put back. A CSV's
-- `stock` column is the count the seller wrote when they made the file. Writing the file's count over the
-- row at every import would bring sold units back (25 imported, 5 sold, the same file again: 25, and
-- cancelling that order then makes 30). So the import remembers here what it last set, and sets the stock
-- again only when the file's value differs from it: the seller changed the count, and the new count becomes
-- the stock. The same file after sales is then unchanged. Null: the last import left the stock untracked, or
-- no import has set it; the import treats both as "empty" (rows it never imported keep their stock until a
-- file gives them a count).
--
-- Rows already given an SKU were made or matched by the import before this column existed, which then
-- wrote the file's count: their stock is the best record of it there is.
--
-- Readable by the API roles like every other catalogue column (storefronts read products with select=*,
-- which a column without the grant would turn into a 42501); it says no more than stock_quantity does.

alter table public.products add column imported_stock integer
  constraint products_imported_stock_not_negative check (imported_stock >= 0);
alter table public.product_variants add column imported_stock integer
  constraint product_variants_imported_stock_not_negative check (imported_stock >= 0);

update public.products set imported_stock = stock_quantity where sku is not null;
update public.product_variants set imported_stock = stock_quantity where sku is not null;
