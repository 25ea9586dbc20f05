-- An order's items touch one index by what was sold, not two: WAL per order at 100,000 orders (issue 17,
-- full-page images included, bench/wal_at_scale.ts). order_items had an index by product and one by variant
-- for the two foreign keys' checks when a product or a variant is deleted; each puts a product's (or a
-- variant's) newest items on a leaf of its own, so 1,000 orders over 200 products dirtied about 400 leaves of
-- each after a checkpoint: 1,207 bytes of page images per order each, of 6.64 KB in all.
-- Now the variant's foreign key names the product too, (product_id, variant_id) → product_variants
-- (product_id, id), and one index (product_id, variant_id) serves both checks: a product's delete reads its
-- leading column, a variant's delete both. It also says in the database what create_order already checked: an
-- item's variant is one of its product's. A row that breaks it stops this migration (validated, not assumed).
-- The rows the checks lock are the same (the product's and the variant's, KEY SHARE): the lock order holds.

alter table public.product_variants
  add constraint product_variants_product_id_id_key unique (product_id, id);

create index order_items_product_id_variant_id_idx on public.order_items (product_id, variant_id);

alter table public.order_items
  add constraint order_items_variant_of_its_product foreign key (product_id, variant_id)
  references public.product_variants (product_id, id) on delete restrict not valid;
alter table public.order_items validate constraint order_items_variant_of_its_product;

alter table public.order_items drop constraint order_items_variant_id_fkey;
drop index public.order_items_product_id_idx;
drop index public.order_items_variant_id_idx;
