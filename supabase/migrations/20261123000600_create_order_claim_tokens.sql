-- create_order, unchanged but for the claim tokens of its two e-mails (see the outbox claim-token
-- migration): the rows it claims for the request's own sender get a claim_token each, and the claimed
-- messages it returns carry it as claimToken, so that sender's results are recorded only while its claim is
-- current. Everything else is 20261122000600_create_order_function.sql as it stands.

create or replace function public.create_order(payload jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_store_id uuid := (payload ->> 'storeId')::uuid;
  v_idempotency jsonb := nullif(payload -> 'idempotency', 'null'::jsonb);
  v_ordered_at timestamptz := coalesce((payload ->> 'orderedAt')::timestamptz, now());
  v_year integer := extract(year from v_ordered_at at time zone 'UTC')::integer;
  v_order_id uuid := gen_random_uuid();
  v_store record;
  v_product record;
  v_variant_name text;
  v_variant_price numeric(12, 2);
  v_variant_product_id uuid;
  v_variant_active boolean;
  v_item record;
  v_price numeric(12, 2);
  v_items jsonb := '[]'::jsonb;
  v_mismatches jsonb := '[]'::jsonb;
  v_total_minor bigint := 0;
  v_existing record;
  v_sequence integer;
  v_order_number text;
  v_email_payload jsonb;
  v_emails jsonb;
  v_limits jsonb := nullif(payload -> 'rateLimits', 'null'::jsonb);
  v_retry_after integer;
begin
  -- 1. Idempotency first: a replay must not touch the catalogue, the counters or the outbox.
  --    The advisory lock (released at commit) tells a concurrent duplicate that the first is still
  --    in progress, instead of letting it wait on our unique key.
  if v_idempotency is not null then
    if not pg_try_advisory_xact_lock(hashtextextended(v_store_id::text || '/' || (v_idempotency ->> 'key'), 0)) then
      raise exception using errcode = 'OCI09', message = 'IDEMPOTENCY_KEY_IN_USE: a request with this key is in progress';
    end if;
    select k.request_hash, k.order_id into v_existing
    from public.idempotency_keys k
    where k.store_id = v_store_id and k.key = v_idempotency ->> 'key';
    if found then
      if v_existing.request_hash <> v_idempotency ->> 'requestHash' then
        raise exception using errcode = 'OCI22', message = 'IDEMPOTENCY_KEY_REUSED: this key was used with another body';
      end if;
      return jsonb_build_object(
        'replayed', true, 'response', public.order_response(v_existing.order_id), 'emails', '[]'::jsonb
      );
    end if;
  end if;

  -- 2. The store: it must exist and sell. key share: a store cannot vanish under its new order.
  select s.id, s.name, s.owner_email, s.currency, s.is_active into v_store
  from public.stores s where s.id = v_store_id for key share;
  if not found or not v_store.is_active then
    raise exception using errcode = 'OCS04', message = 'STORE_NOT_FOUND: no active store with this id',
      detail = jsonb_build_object('storeId', v_store_id)::text;
  end if;

  -- 3. Each item against the catalogue. A missing product or variant fails at once (404 wins);
  --    price differences are collected so the buyer sees every current price in one answer.
  for v_item in
    select (e.ordinality - 1)::integer as position, (e.value ->> 'productId')::uuid as product_id,
      (e.value ->> 'variantId')::uuid as variant_id, (e.value ->> 'quantity')::integer as quantity,
      (e.value ->> 'unitPriceMinor')::bigint as unit_price_minor
    from jsonb_array_elements(payload -> 'items') with ordinality as e
  loop
    select p.id, p.name, p.price, p.is_active, p.store_id into v_product
    from public.products p where p.id = v_item.product_id for key share;
    if not found or not v_product.is_active or v_product.store_id <> v_store.id then
      raise exception using errcode = 'OCP04', message = 'PRODUCT_NOT_FOUND: no active product with this id in this store',
        detail = jsonb_build_object('index', v_item.position, 'productId', v_item.product_id)::text;
    end if;

    v_variant_name := null;
    v_variant_price := null;
    if v_item.variant_id is not null then
      select v.name, v.price, v.is_active, v.product_id
      into v_variant_name, v_variant_price, v_variant_active, v_variant_product_id
      from public.product_variants v where v.id = v_item.variant_id for key share;
      if not found or not v_variant_active or v_variant_product_id <> v_product.id then
        raise exception using errcode = 'OCV04', message = 'VARIANT_NOT_FOUND: no active variant with this id for this product',
          detail = jsonb_build_object('index', v_item.position, 'variantId', v_item.variant_id)::text;
      end if;
    end if;

    v_price := coalesce(v_variant_price, v_product.price);
    if (v_price * 100)::bigint <> v_item.unit_price_minor then
      v_mismatches := v_mismatches || jsonb_build_object(
        'index', v_item.position, 'productId', v_item.product_id, 'variantId', v_item.variant_id,
        'price', v_price, 'submittedPrice', (v_item.unit_price_minor / 100.0)::numeric(14, 2)
      );
    end if;
    v_total_minor := v_total_minor + (v_price * 100)::bigint * v_item.quantity;
    v_items := v_items || jsonb_build_object(
      'position', v_item.position, 'productId', v_item.product_id, 'variantId', v_item.variant_id,
      'productName', v_product.name, 'variantName', v_variant_name, 'quantity', v_item.quantity,
      'unitPriceMinor', (v_price * 100)::bigint, 'lineTotalMinor', (v_price * 100)::bigint * v_item.quantity
    );
  end loop;

  if jsonb_array_length(v_mismatches) > 0 then
    raise exception using errcode = 'OC400', message = 'PRICE_MISMATCH: an item price differs from the catalogue',
      detail = v_mismatches::text;
  end if;
  if v_total_minor <> (payload ->> 'totalMinor')::bigint
    or (payload ->> 'feeMinor')::bigint < 0
    or (payload ->> 'finalMinor')::bigint <> v_total_minor + (payload ->> 'feeMinor')::bigint then
    raise exception using errcode = 'OCA00', message = 'AMOUNT_MISMATCH: the totals passed do not match the catalogue';
  end if;

  -- 4. The order, its items and its two e-mails; the history row comes from the lifecycle trigger.
  insert into public.orders (
    id, store_id, order_year, status, payment_method, gateway_method, payment_proof_url,
    buyer_email, buyer_name, buyer_phone, shipping_address, currency,
    total_amount, checkout_fee, final_amount, client_ip, created_at, updated_at
  ) values (
    v_order_id, v_store.id, v_year, 'payment_pending', payload ->> 'paymentMethod', payload ->> 'gatewayMethod',
    payload ->> 'paymentProofUrl', payload -> 'buyer' ->> 'email', payload -> 'buyer' ->> 'name',
    payload -> 'buyer' ->> 'phone', payload -> 'shippingAddress', v_store.currency,
    v_total_minor / 100.0, (payload ->> 'feeMinor')::bigint / 100.0, (payload ->> 'finalMinor')::bigint / 100.0,
    payload ->> 'clientIp', v_ordered_at, v_ordered_at
  );

  insert into public.order_items (
    order_id, position, product_id, variant_id, product_name, variant_name, quantity, unit_price, line_total
  )
  select v_order_id, i.position, i."productId", i."variantId", i."productName", i."variantName", i.quantity,
    i."unitPriceMinor" / 100.0, i."lineTotalMinor" / 100.0
  from jsonb_to_recordset(v_items) as i(
    position integer, "productId" uuid, "variantId" uuid, "productName" text, "variantName" text,
    quantity integer, "unitPriceMinor" bigint, "lineTotalMinor" bigint
  );

  v_email_payload := jsonb_build_object(
    'orderId', v_order_id, 'createdAt', v_ordered_at, 'currency', v_store.currency,
    'store', jsonb_build_object('name', v_store.name, 'ownerEmail', v_store.owner_email),
    'buyer', payload -> 'buyer', 'shippingAddress', payload -> 'shippingAddress',
    'paymentMethod', payload ->> 'paymentMethod', 'gatewayMethod', payload ->> 'gatewayMethod',
    'paymentProofUrl', payload ->> 'paymentProofUrl', 'items', v_items,
    'totalMinor', v_total_minor, 'feeMinor', (payload ->> 'feeMinor')::bigint,
    'finalMinor', (payload ->> 'finalMinor')::bigint
  );
  -- Claimed by this request at once (status sending): the function sends them right after it answers,
  -- and if it dies first, the drain picks them up once the claim is stale.
  -- The rows as the sender needs them come back from the insert, so nothing reads the outbox again later,
  -- while the counter row is locked; their order number is added once it is known.
  -- Each row carries its claim token, which the sender's result must quote (outbox claim-token migration).
  with inserted as (
    insert into public.email_outbox (order_id, kind, to_email, reply_to, payload, status, claimed_at, claim_token)
    values
      (v_order_id, 'buyer', payload -> 'buyer' ->> 'email', v_store.owner_email, v_email_payload, 'sending', now(),
        gen_random_uuid()),
      (v_order_id, 'seller', v_store.owner_email, payload -> 'buyer' ->> 'email', v_email_payload, 'sending', now(),
        gen_random_uuid())
    returning id, order_id, kind, to_email, reply_to, attempts, claim_token
  )
  select jsonb_agg(jsonb_build_object(
    'id', i.id, 'orderId', i.order_id, 'kind', i.kind, 'to', i.to_email, 'replyTo', i.reply_to,
    'attempts', i.attempts, 'claimToken', i.claim_token
  ) order by i.kind) into v_emails
  from inserted i;

  if v_idempotency is not null then
    insert into public.idempotency_keys (store_id, key, request_hash, order_id)
    values (v_store.id, v_idempotency ->> 'key', v_idempotency ->> 'requestHash', v_order_id);
  end if;

  -- 5. Rate limits, late so their counter rows are locked only briefly: one statement bumps the
  --    client's IP and e-mail counters of the current fixed window and reports the first one over.
  if v_limits is not null then
    with buckets as (
      select b.bucket, b.max_hits, b.window_seconds,
        to_timestamp(floor(extract(epoch from now()) / b.window_seconds) * b.window_seconds) as window_start
      from (values
        ('ip:' || (payload ->> 'clientIp'), (v_limits ->> 'ipLimit')::integer, (v_limits ->> 'ipWindowSeconds')::integer),
        ('email:' || lower(payload -> 'buyer' ->> 'email'), (v_limits ->> 'emailLimit')::integer,
          (v_limits ->> 'emailWindowSeconds')::integer)
      ) as b(bucket, max_hits, window_seconds)
      where b.bucket is not null and b.max_hits > 0 and b.window_seconds > 0
    ),
    bumped as (
      insert into public.order_rate_limits as r (bucket, window_start, hits)
      select bucket, window_start, 1 from buckets
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

  -- 6. The number, last: the counter row stays locked from here to commit, so concurrent orders of
  --    one store queue for as little as possible. A rollback returns the number: no gaps.
  insert into public.order_counters as c (store_id, year, last_sequence)
  values (v_store.id, v_year, 1)
  on conflict (store_id, year) do update set last_sequence = c.last_sequence + 1, updated_at = now()
  returning c.last_sequence into v_sequence;
  v_order_number := format('ORD-%s-%s', v_year, lpad(v_sequence::text, 6, '0'));
  update public.orders set order_number = v_order_number, order_sequence = v_sequence where id = v_order_id;

  v_email_payload := v_email_payload || jsonb_build_object('orderNumber', v_order_number);
  select jsonb_agg(e.value || jsonb_build_object('payload', v_email_payload) order by e.ordinality)
  into v_emails
  from jsonb_array_elements(v_emails) with ordinality as e;

  -- 7. The caller's time budget (timeoutMs, from statement start): a call that waited past it (a lock,
  --    a slow disk) rolls back instead of committing an order whose caller has already answered 500.
  if (payload ->> 'timeoutMs') is not null
    and clock_timestamp() > statement_timestamp() + make_interval(secs => (payload ->> 'timeoutMs')::numeric / 1000) then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before this order could commit';
  end if;

  return jsonb_build_object(
    'replayed', false,
    'response', jsonb_build_object(
      'success', true, 'orderId', v_order_id, 'orderNumber', v_order_number,
      'totalAmount', (v_total_minor / 100.0)::numeric(14, 2),
      'checkoutFee', ((payload ->> 'feeMinor')::bigint / 100.0)::numeric(14, 2),
      'finalAmount', ((payload ->> 'finalMinor')::bigint / 100.0)::numeric(14, 2),
      'status', 'payment_pending'
    ),
    'emails', v_emails
  );
end;
$$;

revoke execute on function public.create_order(jsonb) from public, anon, authenticated;
grant execute on function public.create_order(jsonb) to service_role;
