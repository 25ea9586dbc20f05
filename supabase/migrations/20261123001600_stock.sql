-- Stock: nothing stops a shop from selling its last teapot twice unless the database counts what is left.
-- products.stock_quantity and product_variants.stock_quantity are optional: null means the shop does not
-- track stock for it (orders take any quantity), a number is what is left to sell and never goes below 0.
-- An ordered variant draws on its own stock when it has one, else on its product's (variants that share
-- one pile of stock leave theirs null).
--
-- create_order takes the stock in the order's transaction (its own migration) and records on each item
-- where it took it from (order_items.stock_source: 'variant', 'product', or null when not tracked), so
-- that cancelling the order puts back exactly what was taken, to the row it came from, whatever the
-- catalogue's settings are by then. The restock is a trigger on the status change to `cancelled`, so
-- every path that cancels an order restocks it; the lifecycle makes `cancelled` final, so it happens once.
-- Stock rows are locked in one fixed order (product id, then variant id, the product's own row first),
-- both here and in create_order, so concurrent orders and cancellations cannot deadlock each other.

alter table public.products add column stock_quantity integer
  constraint products_stock_quantity_not_negative check (stock_quantity >= 0);
alter table public.product_variants add column stock_quantity integer
  constraint product_variants_stock_quantity_not_negative check (stock_quantity >= 0);

alter table public.order_items add column stock_source text
  constraint order_items_stock_source check (stock_source in ('product', 'variant'));

-- Puts a cancelled order's items back into the stock they were taken from: per stock row, in the fixed
-- lock order. A row whose tracking was turned off since (null) stays untracked: null + n is null.
create or replace function public.restock_cancelled_order()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_taken record;
begin
  for v_taken in
    select i.product_id, case when i.stock_source = 'variant' then i.variant_id end as variant_id,
      sum(i.quantity)::integer as quantity
    from public.order_items i
    where i.order_id = new.id and i.stock_source is not null
    group by 1, 2
    order by 1, 2 nulls first
  loop
    if v_taken.variant_id is null then
      update public.products p set stock_quantity = p.stock_quantity + v_taken.quantity
      where p.id = v_taken.product_id;
    else
      update public.product_variants v set stock_quantity = v.stock_quantity + v_taken.quantity
      where v.id = v_taken.variant_id;
    end if;
  end loop;
  return null;
end;
$$;

create trigger orders_restock_on_cancel
  after update of status on public.orders
  for each row when (new.status = 'cancelled' and old.status is distinct from 'cancelled')
  execute function public.restock_cancelled_order();

revoke execute on function public.restock_cancelled_order() from public, anon, authenticated, service_role;
