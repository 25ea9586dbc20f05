-- create_order(payload): every database step of one order, in one transaction and one round trip. The
-- create-order function validates the request and computes the amounts (integer minor units); this function
-- checks them against the catalogue, so no caller can store a wrong price or sum. In order: its deadline (at
-- most 6 s from its start: 07_lock_order.sql), a waiter slot of its store (take_store_slot), the facts a
-- direct caller could get wrong (the text rule of 05_text_rules.sql among them: OCN00 with the fields'
-- paths), idempotency, the store, each product and variant, variant required, prices, amounts, the rate
-- limits (read without a lock: a client already over its limit is refused early), then behind its store's
-- queue the stock and the order number (an update of the store's counter row for the year in the store's
-- zone; an insert for a year's first order), then one insert of the complete order row, its items, its two
-- outbox rows and its idempotency key, and last the rate-limit hits (lock order: rank 8). Text is stored as
-- the rule keeps it (trimmed, NFC; the phone in E.164; the country upper-case). The order id and its outbox
-- rows' ids are UUIDv7; the claim tokens stay random, as a secret must. It runs as its owner (security
-- definer) and only service_role may call it.
--
-- A store's waiter slots: each order waits for its store's rows on a connection of its caller's pool
-- (PostgREST's, 10 on the local stack and small on Supabase too). With one store's counter row held, 40 of
-- its orders filled the pool and an order of another store waited for a connection. So an order first takes
-- one of its store's K slots (take_store_slot, a try that never waits: rank 1 of the lock order) and holds
-- it to commit; with all K taken the call fails at once with OCW29, holding nothing, and its caller
-- (create-order's adapter) tries again after a short pause without a connection, until its deadline. One
-- store then holds at most K of the pool's connections, whatever happens to its rows. K is the database's
-- own setting, the same for every caller: order_settings.store_order_slots, default 3. An operator changes it
-- with
--   update public.order_settings set store_order_slots = 4;
-- (it applies to the next order). One row, read only by the tables' owner: no API role reads or writes it.
--
-- Failures raise a SQLSTATE of our own, which the function maps by code, never by message:
--   OCS04 STORE_NOT_FOUND      OCP04 PRODUCT_NOT_FOUND     OCV04 VARIANT_NOT_FOUND
--   OCV00 VARIANT_REQUIRED (detail: { index, productId })
--   OC400 PRICE_MISMATCH (detail: JSON list of the current prices)
--   OCA03 AMOUNT_TOO_LARGE (the catalogue's total does not fit numeric(12,2); detail: { maxFinalAmount })
--   OCI09 IDEMPOTENCY_KEY_IN_USE                            OCI22 IDEMPOTENCY_KEY_REUSED
--   OCR29 RATE_LIMITED (detail: { retryAfterSeconds })
--   OCQ09 OUT_OF_STOCK (detail: JSON list of { index, productId, variantId, available }, one per item that
--         draws on a stock row without enough left; available is what that row holds now)
--   OCW29 STORE_BUSY (detail: { retryAfterSeconds: 1 }): K orders of the store are in the database already;
--         nothing was done, and trying again shortly is safe
--   OCT00 DEADLINE_EXCEEDED (the deadline passed; nothing is stored); a lock wait that reaches the deadline
--         fails with 55P03 (lock_not_available), nothing stored either
-- and, for a caller that bypassed the function's validation (never the buyer's fault):
--   OCN00 VALIDATION_FAILED (detail: [{ path, message }], paths as the payload spells them: buyer.name,
--         buyer.phone, shippingAddress.<field>, paymentProofUrl)
--   OCA00 AMOUNT_MISMATCH (total or final not the catalogue's)   OCA01 FEE_MISMATCH (not the method's rate)
--   OCA02 NO_ITEMS      OCD00 ORDER_TIME_OUT_OF_RANGE (more than 5 minutes from the database's clock)
--   OCB00 INVALID_BUYER_EMAIL
--
-- payload: { storeId, orderedAt?, deadline?, buyer: { email, name, phone }, shippingAddress: {...},
--   paymentMethod, gatewayMethod, paymentProofUrl, clientIp?, buyerUserId?,
--   items: [{ productId, variantId?, quantity, unitPriceMinor }], totalMinor, feeMinor, finalMinor,
--   idempotency?: { key, requestHash },
--   rateLimits?: { ipLimit, ipWindowSeconds, emailLimit, emailWindowSeconds } (a limit of 0 is off) }
--   deadline: an absolute time (ISO 8601), at most 6 s from the call's start (a later one, or none, is that);
--   past it the call rolls back (OCT00) rather than commit.
-- returns: { replayed, response: <the HTTP success body>, emails: [<claimed outbox messages>] }

create table public.order_settings (
  -- one row: the key can only be true
  singleton boolean primary key default true check (singleton),
  store_order_slots integer not null default 3 check (store_order_slots between 1 and 100)
);
-- The one row is data, not schema: db:diff carries no rows, so a migration that adds a setting writes its
-- row itself (take_store_slot reads 3 where there is none).
insert into public.order_settings default values on conflict do nothing;

alter table public.order_settings enable row level security;
revoke all on public.order_settings from public, anon, authenticated, service_role;

-- One of the store's K waiter slots for this transaction (held to commit), or OCW29 at once when all are
-- taken. Each slot is a transaction-scoped advisory lock `store-slot/<store id>/<n>`, tried in turn; a
-- transaction that holds one already takes it again. Read at every call, the setting applies at once.
create or replace function public.take_store_slot(p_store_id uuid)
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_slots integer := coalesce((select s.store_order_slots from public.order_settings s where s.singleton), 3);
begin
  -- no store, nothing of one to wait on: the store's own check refuses the order
  if p_store_id is null then
    return;
  end if;
  for v_slot in 1..v_slots loop
    if pg_try_advisory_xact_lock(hashtextextended('store-slot/' || p_store_id::text || '/' || v_slot, 0)) then
      return;
    end if;
  end loop;
  raise exception using errcode = 'OCW29',
    message = format('STORE_BUSY: %s orders of this store are in progress; try again shortly', v_slots),
    detail = jsonb_build_object('retryAfterSeconds', 1)::text;
end;
$$;

revoke execute on function public.take_store_slot(uuid) from public, anon, authenticated, service_role;

-- The success body of an order, as first answered: its status is the one it was created with.
create or replace function public.order_response(p_order_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'success', true,
    'orderId', o.id,
    'orderNumber', o.order_number,
    'totalAmount', o.total_amount,
    'checkoutFee', o.checkout_fee,
    'finalAmount', o.final_amount,
    'status', (
      select h.to_status from public.order_status_history h
      where h.order_id = o.id order by h.id limit 1
    )
  )
  from public.orders o
  where o.id = p_order_id;
$$;

revoke execute on function public.order_response(uuid) from public, anon, authenticated, service_role;
grant execute on function public.order_response(uuid) to service_role;

create or replace function public.create_order(payload jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_store_id uuid := (payload ->> 'storeId')::uuid;
  v_deadline timestamptz := (payload ->> 'deadline')::timestamptz;
  v_idempotency jsonb := nullif(payload -> 'idempotency', 'null'::jsonb);
  v_ordered_at timestamptz := coalesce((payload ->> 'orderedAt')::timestamptz, now());
  v_year integer;
  v_buyer_email text := payload -> 'buyer' ->> 'email';
  v_payment_method text := payload ->> 'paymentMethod';
  v_gateway_method text := payload ->> 'gatewayMethod';
  v_order_id uuid := public.uuid_v7();
  v_buyer_user_id uuid := (payload ->> 'buyerUserId')::uuid;
  v_text jsonb;
  v_store record;
  v_product record;
  v_variant_name text;
  v_variant_price numeric(12, 2);
  v_variant_product_id uuid;
  v_variant_active boolean;
  v_variant_stock integer;
  v_stock_source text;
  v_stock record;
  v_available integer;
  v_shortages jsonb := '[]'::jsonb;
  v_out_of_stock jsonb;
  v_item record;
  v_price numeric(12, 2);
  v_items jsonb := '[]'::jsonb;
  v_mismatches jsonb := '[]'::jsonb;
  v_variant_required jsonb;
  v_total_minor bigint := 0::bigint;
  v_fee_minor bigint;
  v_existing record;
  v_sequence integer;
  v_order_number text;
  v_email_payload jsonb;
  v_emails jsonb;
  v_limits jsonb := nullif(payload -> 'rateLimits', 'null'::jsonb);
  v_buckets jsonb := '[]'::jsonb;
  v_bucket record;
  v_retry_after integer;
begin
  -- 1. The deadline, before anything is locked: a call that queued past it gives up at once, and every
  --    lock wait after it ends by the deadline (start_deadline, bound_lock_wait, join_queue) instead of
  --    holding a connection until the lock is released. The check before returning (step 13) covers the rest.
  perform public.start_deadline(v_deadline, 'order');

  -- 1b. A waiter slot of the store (a try, held to commit): one store's orders never hold more than K
  --     connections of the caller's pool, whatever they wait on from here (OCW29 at once when none is free).
  --     First, so that a refused try costs the database next to nothing: a busy store's callers try again.
  perform public.take_store_slot(v_store_id);

  -- 2. What the function validated, checked again for any other caller.
  if jsonb_typeof(payload -> 'items') is distinct from 'array' or jsonb_array_length(payload -> 'items') = 0 then
    raise exception using errcode = 'OCA02', message = 'NO_ITEMS: an order needs at least one item';
  end if;
  if abs(extract(epoch from v_ordered_at - now())) > 300 then
    raise exception using errcode = 'OCD00', message = 'ORDER_TIME_OUT_OF_RANGE: orderedAt must be within 5 minutes of the database''s clock',
      detail = jsonb_build_object('orderedAt', v_ordered_at, 'databaseTime', now())::text;
  end if;
  if not public.is_email_address(v_buyer_email) then
    raise exception using errcode = 'OCB00', message = 'INVALID_BUYER_EMAIL: buyer.email is not an e-mail address of the contract''s shape';
  end if;
  -- the text rule of every text field (order_text_rule); what is stored below is the text as it keeps it
  v_text := public.order_text_rule(payload);
  if jsonb_array_length(v_text -> 'issues') > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: a text field breaks the text rule',
      detail = (v_text -> 'issues')::text;
  end if;

  -- 3. Idempotency: a replay must not touch the catalogue, the counters or the outbox.
  --    The advisory lock (released at commit) tells a concurrent duplicate that the first is still
  --    in progress, instead of letting it wait on our unique key. A key's hash is compared with
  --    "is distinct from": a missing hash is another body, never a match.
  if v_idempotency is not null then
    if not pg_try_advisory_xact_lock(hashtextextended(v_store_id::text || '/' || (v_idempotency ->> 'key'), 0)) then
      raise exception using errcode = 'OCI09', message = 'IDEMPOTENCY_KEY_IN_USE: a request with this key is in progress';
    end if;
    select k.request_hash, k.order_id into v_existing
    from public.idempotency_keys k
    where k.store_id = v_store_id and k.key = v_idempotency ->> 'key';
    if found then
      if v_existing.request_hash is distinct from v_idempotency ->> 'requestHash' then
        raise exception using errcode = 'OCI22', message = 'IDEMPOTENCY_KEY_REUSED: this key was used with another body';
      end if;
      return jsonb_build_object(
        'replayed', true, 'response', public.order_response(v_existing.order_id), 'emails', '[]'::jsonb
      );
    end if;
  end if;

  -- 4. The store: it must exist and sell. key share: a store cannot vanish under its new order (rank 3 of
  --    the lock order, as the catalogue rows of step 5). The year is the order's in the store's zone.
  perform public.bound_lock_wait();
  select s.id, s.name, s.owner_email, s.currency, s.is_active, s.time_zone into v_store
  from public.stores s where s.id = v_store_id for key share;
  if not found or not v_store.is_active then
    raise exception using errcode = 'OCS04', message = 'STORE_NOT_FOUND: no active store with this id',
      detail = jsonb_build_object('storeId', v_store_id)::text;
  end if;
  v_year := public.order_year_of(v_ordered_at, v_store.time_zone);

  -- 5. Each item against the catalogue. A missing product or variant fails at once (404 wins); a
  --    product ordered without one of its variants, and price differences, are collected and decided
  --    after every item was found, so the buyer sees all current prices in one answer.
  for v_item in
    select (e.ordinality - 1)::integer as position, (e.value ->> 'productId')::uuid as product_id,
      (e.value ->> 'variantId')::uuid as variant_id, (e.value ->> 'quantity')::integer as quantity,
      (e.value ->> 'unitPriceMinor')::bigint as unit_price_minor
    from jsonb_array_elements(payload -> 'items') with ordinality as e
  loop
    perform public.bound_lock_wait();
    select p.id, p.name, p.price, p.is_active, p.store_id, p.stock_quantity into v_product
    from public.products p where p.id = v_item.product_id for key share;
    if not found or not v_product.is_active or v_product.store_id <> v_store.id then
      raise exception using errcode = 'OCP04', message = 'PRODUCT_NOT_FOUND: no active product with this id in this store',
        detail = jsonb_build_object('index', v_item.position, 'productId', v_item.product_id)::text;
    end if;

    v_variant_name := null;
    v_variant_price := null;
    v_variant_stock := null;
    if v_item.variant_id is not null then
      select v.name, v.price, v.is_active, v.product_id, v.stock_quantity
      into v_variant_name, v_variant_price, v_variant_active, v_variant_product_id, v_variant_stock
      from public.product_variants v where v.id = v_item.variant_id for key share;
      if not found or not v_variant_active or v_variant_product_id <> v_product.id then
        raise exception using errcode = 'OCV04', message = 'VARIANT_NOT_FOUND: no active variant with this id for this product',
          detail = jsonb_build_object('index', v_item.position, 'variantId', v_item.variant_id)::text;
      end if;
    elsif v_variant_required is null and exists (
      select 1 from public.product_variants v where v.product_id = v_product.id and v.is_active
    ) then
      v_variant_required := jsonb_build_object('index', v_item.position, 'productId', v_item.product_id);
    end if;

    v_price := coalesce(v_variant_price, v_product.price);
    -- a variant's own stock when it has one, else its product's; null: not tracked
    v_stock_source := case
      when v_variant_stock is not null then 'variant'
      when v_product.stock_quantity is not null then 'product'
    end;
    if (v_price * 100)::bigint is distinct from v_item.unit_price_minor then
      v_mismatches := v_mismatches || jsonb_build_object(
        'index', v_item.position, 'productId', v_item.product_id, 'variantId', v_item.variant_id,
        'price', v_price, 'submittedPrice', (v_item.unit_price_minor / 100.0)::numeric(14, 2)
      );
    end if;
    v_total_minor := v_total_minor + (v_price * 100)::bigint * v_item.quantity;
    v_items := v_items || jsonb_build_object(
      'position', v_item.position, 'productId', v_item.product_id, 'variantId', v_item.variant_id,
      'productName', v_product.name, 'variantName', v_variant_name, 'quantity', v_item.quantity,
      'unitPriceMinor', (v_price * 100)::bigint, 'lineTotalMinor', (v_price * 100)::bigint * v_item.quantity,
      'stockSource', v_stock_source
    );
  end loop;

  if v_variant_required is not null then
    raise exception using errcode = 'OCV00', message = 'VARIANT_REQUIRED: this product is sold in variants; choose one',
      detail = v_variant_required::text;
  end if;
  if jsonb_array_length(v_mismatches) > 0 then
    raise exception using errcode = 'OC400', message = 'PRICE_MISMATCH: an item price differs from the catalogue',
      detail = v_mismatches::text;
  end if;

  -- 6. Amounts, from the catalogue's total: too large is the buyer's 400; a caller's total, final or fee
  --    that differs from what the catalogue and the payment method's rate give is refused.
  v_fee_minor := (public.checkout_fee(v_total_minor / 100.0, v_payment_method, v_gateway_method) * 100)::bigint;
  if v_total_minor + coalesce(v_fee_minor, 0) > 999999999999 then
    raise exception using errcode = 'OCA03', message = 'AMOUNT_TOO_LARGE: the order''s final amount does not fit numeric(12,2)',
      detail = jsonb_build_object('maxFinalAmount', 9999999999.99)::text;
  end if;
  if v_total_minor is distinct from (payload ->> 'totalMinor')::bigint
    or (payload ->> 'finalMinor')::bigint is distinct from v_total_minor + (payload ->> 'feeMinor')::bigint then
    raise exception using errcode = 'OCA00', message = 'AMOUNT_MISMATCH: the totals passed do not match the catalogue';
  end if;
  if v_fee_minor is distinct from (payload ->> 'feeMinor')::bigint then
    raise exception using errcode = 'OCA01', message = 'FEE_MISMATCH: the fee is not the payment method''s rate of the total',
      detail = jsonb_build_object('checkoutFee', v_fee_minor / 100.0)::text;
  end if;

  -- 7. What the order's rows and its answer hold, prepared before the rate-limit, stock and counter rows are
  --    locked: the e-mails' content (the items as the e-mails show them: where their stock came from is no
  --    buyer's or seller's business), and the two outbox rows, each claimed by this request at once (status
  --    sending, a claim token its sender's result must quote): the function sends them right after it
  --    answers, and if it dies first, the drain picks them up once the claim is stale. Their content is
  --    returned, not stored (see the outbox migration before this one).
  v_email_payload := jsonb_build_object(
    'orderId', v_order_id, 'createdAt', v_ordered_at, 'currency', v_store.currency,
    'status', 'payment_pending',
    'store', jsonb_build_object('name', v_store.name, 'ownerEmail', v_store.owner_email),
    'buyer', v_text -> 'buyer', 'shippingAddress', v_text -> 'shippingAddress',
    'paymentMethod', v_payment_method, 'gatewayMethod', v_gateway_method,
    'paymentProofUrl', v_text ->> 'paymentProofUrl',
    'items', (
      select jsonb_agg(e.value - 'stockSource' order by e.ordinality)
      from jsonb_array_elements(v_items) with ordinality as e
    ),
    'totalMinor', v_total_minor, 'feeMinor', v_fee_minor, 'finalMinor', v_total_minor + v_fee_minor
  );
  v_emails := jsonb_build_array(
    jsonb_build_object(
      'id', public.uuid_v7(), 'orderId', v_order_id, 'kind', 'buyer', 'to', v_buyer_email,
      'replyTo', v_store.owner_email, 'attempts', 0, 'claimToken', gen_random_uuid()
    ),
    jsonb_build_object(
      'id', public.uuid_v7(), 'orderId', v_order_id, 'kind', 'seller', 'to', v_store.owner_email,
      'replyTo', v_buyer_email, 'attempts', 0, 'claimToken', gen_random_uuid()
    )
  );

  -- 8. Rate limits, checked without a lock: an IP or e-mail already over its limit in the current fixed
  --    window is refused here, before any row is locked. Its hit is counted last (step 12): the buckets
  --    are shared by every store, so they are locked after every store-scoped wait. The e-mail's bucket
  --    is the address lower-cased with any +tag removed from its local part, so aliases (v+1@, v+2@, ...)
  --    share one limit.
  if v_limits is not null then
    select coalesce(jsonb_agg(jsonb_build_object(
      'bucket', b.bucket, 'maxHits', b.max_hits, 'windowSeconds', b.window_seconds,
      'windowStart', to_timestamp(floor(extract(epoch from now()) / b.window_seconds) * b.window_seconds)
    ) order by b.bucket), '[]'::jsonb)
    into v_buckets
    from (values
      ('ip:' || (payload ->> 'clientIp'), (v_limits ->> 'ipLimit')::integer, (v_limits ->> 'ipWindowSeconds')::integer),
      ('email:' || lower(regexp_replace(v_buyer_email, '\+[^@]*@', '@')), (v_limits ->> 'emailLimit')::integer,
        (v_limits ->> 'emailWindowSeconds')::integer)
    ) as b(bucket, max_hits, window_seconds)
    where b.bucket is not null and b.max_hits > 0 and b.window_seconds > 0;

    select ceil(extract(epoch from (k."windowStart" + make_interval(secs => k."windowSeconds")) - now()))::integer
    into v_retry_after
    from jsonb_to_recordset(v_buckets) as k(bucket text, "maxHits" integer, "windowSeconds" integer, "windowStart" timestamptz)
    join public.order_rate_limits r on r.bucket = k.bucket and r.window_start = k."windowStart"
    where r.hits >= k."maxHits"
    order by 1 desc
    limit 1;
    if v_retry_after is not null then
      raise exception using errcode = 'OCR29', message = 'RATE_LIMITED: too many orders from this client or e-mail',
        detail = jsonb_build_object('retryAfterSeconds', greatest(v_retry_after, 1))::text;
    end if;
  end if;

  -- 9. Stock, late so its rows are locked only briefly, and before the number. First the store's queue
  --    (rank 4 of the lock order), held to commit: the store's orders line up there in one wait each,
  --    bounded by the deadline, and its holder is the only writer of ours that locks the store's stock and
  --    counter rows. Then one stock row at a time, the quantities of the items that draw on it summed, in
  --    the fixed lock order (product id, then variant id, the product's own row first). The update takes
  --    the stock only while enough is left; when it waited for another transaction's lock it re-reads the
  --    row after that one ends, so a unit is never sold twice. Every short row is collected, so the buyer
  --    sees all of them in one answer.
  perform public.join_queue('store/' || v_store.id::text);
  for v_stock in
    select i."productId" as product_id,
      case when i."stockSource" = 'variant' then i."variantId" end as variant_id,
      sum(i.quantity)::integer as quantity
    from jsonb_to_recordset(v_items) as i("productId" uuid, "variantId" uuid, "stockSource" text, quantity integer)
    where i."stockSource" is not null
    group by 1, 2
    order by 1, 2 nulls first
  loop
    perform public.bound_lock_wait();
    if v_stock.variant_id is null then
      update public.products p set stock_quantity = p.stock_quantity - v_stock.quantity
      where p.id = v_stock.product_id and p.stock_quantity >= v_stock.quantity;
      if not found then
        select p.stock_quantity into v_available from public.products p where p.id = v_stock.product_id;
        v_shortages := v_shortages || jsonb_build_object(
          'productId', v_stock.product_id, 'variantId', null, 'available', v_available
        );
      end if;
    else
      update public.product_variants v set stock_quantity = v.stock_quantity - v_stock.quantity
      where v.id = v_stock.variant_id and v.stock_quantity >= v_stock.quantity;
      if not found then
        select v.stock_quantity into v_available from public.product_variants v where v.id = v_stock.variant_id;
        v_shortages := v_shortages || jsonb_build_object(
          'productId', v_stock.product_id, 'variantId', v_stock.variant_id, 'available', v_available
        );
      end if;
    end if;
  end loop;
  if jsonb_array_length(v_shortages) > 0 then
    -- one entry per item that draws on a short row; a row whose tracking was just turned off (null) is
    -- no shortage, so its items are left out and the order is refused only for the others
    select jsonb_agg(jsonb_build_object(
      'index', i.position, 'productId', i."productId", 'variantId', i."variantId",
      'available', s.available
    ) order by i.position)
    into v_out_of_stock
    from jsonb_to_recordset(v_items) as i(position integer, "productId" uuid, "variantId" uuid, "stockSource" text)
    join jsonb_to_recordset(v_shortages) as s("productId" uuid, "variantId" uuid, available integer)
      on s."productId" = i."productId"
      and ((s."variantId" is null and i."stockSource" = 'product')
        or (s."variantId" = i."variantId" and i."stockSource" = 'variant'))
    where s.available is not null;
    if v_out_of_stock is not null then
      raise exception using errcode = 'OCQ09', message = 'OUT_OF_STOCK: not enough stock left for an item',
        detail = v_out_of_stock::text;
    end if;
  end if;

  -- 10. The number (rank 6), in the year of the order in its store's zone. A rollback returns the number:
  --     no gaps.
  perform public.bound_lock_wait();
  update public.order_counters c set last_sequence = c.last_sequence + 1, updated_at = now()
  where c.store_id = v_store.id and c.year = v_year
  returning c.last_sequence into v_sequence;
  if not found then
    insert into public.order_counters as c (store_id, year, last_sequence)
    values (v_store.id, v_year, 1)
    on conflict (store_id, year) do update set last_sequence = c.last_sequence + 1, updated_at = now()
    returning c.last_sequence into v_sequence;
  end if;
  v_order_number := public.format_order_number(v_year, v_sequence);

  -- 11. The order, whole and once (with the zone its year was taken in), then its items, its two e-mails
  --     and its idempotency key (rank 7); the history row comes from the lifecycle trigger.
  insert into public.orders (
    id, store_id, order_number, order_year, order_sequence, status, payment_method, gateway_method,
    payment_proof_url, buyer_email, buyer_name, buyer_phone, shipping_address, currency,
    total_amount, checkout_fee, final_amount, client_ip, buyer_user_id, created_at, updated_at, time_zone
  ) values (
    v_order_id, v_store.id, v_order_number, v_year, v_sequence, 'payment_pending', v_payment_method,
    v_gateway_method, v_text ->> 'paymentProofUrl', v_buyer_email, v_text -> 'buyer' ->> 'name',
    v_text -> 'buyer' ->> 'phone', v_text -> 'shippingAddress', v_store.currency,
    v_total_minor / 100.0, v_fee_minor / 100.0, (v_total_minor + v_fee_minor) / 100.0,
    payload ->> 'clientIp', v_buyer_user_id, v_ordered_at, v_ordered_at, v_store.time_zone
  );

  insert into public.order_items (
    order_id, position, product_id, variant_id, product_name, variant_name, quantity, unit_price, line_total,
    stock_source
  )
  select v_order_id, i.position, i."productId", i."variantId", i."productName", i."variantName", i.quantity,
    i."unitPriceMinor" / 100.0, i."lineTotalMinor" / 100.0, i."stockSource"
  from jsonb_to_recordset(v_items) as i(
    position integer, "productId" uuid, "variantId" uuid, "productName" text, "variantName" text,
    quantity integer, "unitPriceMinor" bigint, "lineTotalMinor" bigint, "stockSource" text
  );

  insert into public.email_outbox (id, order_id, kind, to_email, reply_to, status, claimed_at, claim_token)
  select e.id, v_order_id, e.kind, e."to", e."replyTo", 'sending', now(), e."claimToken"
  from jsonb_to_recordset(v_emails) as e(id uuid, kind text, "to" text, "replyTo" text, "claimToken" uuid);

  if v_idempotency is not null then
    insert into public.idempotency_keys (store_id, key, request_hash, order_id)
    values (v_store.id, v_idempotency ->> 'key', v_idempotency ->> 'requestHash', v_order_id);
  end if;

  -- 12. The rate-limit hits, last (rank 8): each bucket behind its queue, in bucket order, then one
  --     statement bumps the client's IP and e-mail counters of the current window and reports the first one
  --     over. Nothing after this waits: the buckets, shared by every store, are held only to commit.
  if jsonb_array_length(v_buckets) > 0 then
    for v_bucket in select k.bucket from jsonb_to_recordset(v_buckets) as k(bucket text) order by 1 loop
      perform public.join_queue('rate-limit/' || v_bucket.bucket);
    end loop;
    with buckets as (
      select k.bucket, k."maxHits" as max_hits, k."windowSeconds" as window_seconds, k."windowStart" as window_start
      from jsonb_to_recordset(v_buckets) as k(bucket text, "maxHits" integer, "windowSeconds" integer, "windowStart" timestamptz)
    ),
    bumped as (
      insert into public.order_rate_limits as r (bucket, window_start, hits)
      select k.bucket, k.window_start, 1 from buckets k order by k.bucket
      on conflict (bucket, window_start) do update set hits = r.hits + 1
      returning r.bucket, r.window_start, r.hits
    )
    select ceil(extract(epoch from (b.window_start + make_interval(secs => k.window_seconds)) - now()))::integer
    into v_retry_after
    from bumped b join buckets k using (bucket)
    where b.hits > k.max_hits
    order by 1 desc
    limit 1;
    if v_retry_after is not null then
      raise exception using errcode = 'OCR29', message = 'RATE_LIMITED: too many orders from this client or e-mail',
        detail = jsonb_build_object('retryAfterSeconds', greatest(v_retry_after, 1))::text;
    end if;
  end if;

  -- 13. The deadline again, last: a call that waited past it (a lock, a slow disk) rolls back instead of
  --     committing an order whose caller has already answered 500.
  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this order could commit';
  end if;

  v_email_payload := v_email_payload || jsonb_build_object('orderNumber', v_order_number);
  return jsonb_build_object(
    'replayed', false,
    'response', jsonb_build_object(
      'success', true, 'orderId', v_order_id, 'orderNumber', v_order_number,
      'totalAmount', (v_total_minor / 100.0)::numeric(14, 2),
      'checkoutFee', (v_fee_minor / 100.0)::numeric(14, 2),
      'finalAmount', ((v_total_minor + v_fee_minor) / 100.0)::numeric(14, 2),
      'status', 'payment_pending'
    ),
    'emails', (
      select jsonb_agg(e.value || jsonb_build_object('payload', v_email_payload) order by e.ordinality)
      from jsonb_array_elements(v_emails) with ordinality as e
    )
  );
end;
$$;

revoke execute on function public.create_order(jsonb) from public, anon, authenticated, service_role;
grant execute on function public.create_order(jsonb) to service_role;
