-- Demo catalogue for local development, with fixed ids so the README's curl example works as written.
-- Re-running the seed changes nothing (on conflict do nothing).

insert into public.stores (id, name, owner_email, currency) values
  ('11111111-1111-4111-8111-111111111111', 'Chai & Co.', 'owner@example.com', 'INR'),
  ('22222222-2222-4222-8222-222222222222', 'Closed Shop', 'closed@example.com', 'INR')
on conflict (id) do nothing;

update public.stores set is_active = false where id = '22222222-2222-4222-8222-222222222222';

-- The SKUs are what docs/catalogue-sample.csv names: importing it into Chai & Co. updates these rows.
insert into public.products (id, store_id, sku, name, price) values
  ('aaaaaaaa-0001-4000-8000-000000000001', '11111111-1111-4111-8111-111111111111', 'ASSAM-250', 'Assam Tea 250 g', 349.00),
  ('aaaaaaaa-0002-4000-8000-000000000002', '11111111-1111-4111-8111-111111111111', 'MASALA-100', 'Masala Chai Mix 100 g', 199.50),
  ('aaaaaaaa-0003-4000-8000-000000000003', '11111111-1111-4111-8111-111111111111', 'TUMBLER', 'Steel Tumbler', 250.00),
  ('aaaaaaaa-0004-4000-8000-000000000004', '22222222-2222-4222-8222-222222222222', 'OLD-STOCK', 'Old Stock', 10.00)
on conflict (id) do nothing;

-- The tumbler comes in two sizes; the large one costs more, the small one sells at the product price.
insert into public.product_variants (id, product_id, sku, name, price) values
  ('bbbbbbbb-0001-4000-8000-000000000001', 'aaaaaaaa-0003-4000-8000-000000000003', 'TUMBLER-S', 'Small 200 ml', null),
  ('bbbbbbbb-0002-4000-8000-000000000002', 'aaaaaaaa-0003-4000-8000-000000000003', 'TUMBLER-L', 'Large 400 ml', 299.00)
on conflict (id) do nothing;
