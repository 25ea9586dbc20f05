-- cancel_unpaid_orders never waits for a lock held by anyone (replaced whole, from
-- 20261126150300_unpaid_orders_ignore_refunds.sql, its batch and refunds rule kept). It took its batch's stores'
-- queues, then every stock row of the batch, before its first move, each wait bounded by its deadline: with a
-- store-2 product row held by another session for 20 s, the batch took store 1's queue, waited on that row until
-- its 6 s deadline and rolled back, so store 1's orders waited behind it (5.51 s, 4.56 s, ... 0.66 s, 0.03 s
-- once it ended), the drain answered "unpaidOrders": null, and run after run cancelled nothing in any store.
-- Now each order of the batch is taken only if all it needs is free at once: its row (SKIP LOCKED, as before),
-- its store's queue (try_queue: a try of join_queue's advisory lock) and its stock rows in (product id,
-- variant id) order (FOR NO KEY UPDATE SKIP LOCKED). An order one of whose locks is busy is left as it is and
-- reported in `skipped`; the orders after it go on. Those skipped are tried once more after the others (the
-- moment that held their rows may be over), and what is still busy is the next run's. Near its deadline (250 ms
-- before it) the batch takes no new order. The moves then find every row their restock needs already held.
--
-- One transaction still, rather than one order per transaction: the drain's run stays one round trip, and a
-- writer that never waits cannot be part of a wait cycle, so taking its orders' locks order by order (not in
-- store and stock order across the batch) cannot deadlock. Nor a subtransaction per order, which would give back
-- what a skipped order took: each would take a transaction id, and past 64 of them in a batch of 100 every
-- other session's snapshot checks would read pg_subtrans while the batch runs; what a skipped order took is
-- held instead until the batch commits, a moment later (it waits for nothing).
--
-- returns { cancelled: [{ orderId, orderNumber, paymentMethod }], emails: [...],
--   skipped: [{ orderId, orderNumber, paymentMethod }] }
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCT00 DEADLINE_EXCEEDED.

-- The try of join_queue: takes the queue `p_queue` for this transaction if nobody holds it, and says whether
-- it did; never waits. A transaction that holds it already takes it again.
create or replace function public.try_queue(p_queue text)
returns boolean
language sql
volatile
set search_path = ''
as $$
  select pg_try_advisory_xact_lock(hashtextextended(p_queue, 0));
$$;

revoke execute on function public.try_queue(text) from public, anon, authenticated, service_role;

create or replace function public.cancel_unpaid_orders(
  p_gateway_minutes integer,
  p_upi_direct_hours integer,
  p_limit integer default 100,
  p_deadline timestamptz default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_gateway_before timestamptz;
  v_upi_direct_before timestamptz;
  v_batch jsonb := '[]'::jsonb;
  v_stock record;
  v_order record;
  v_move jsonb;
  v_cancelled jsonb := '[]'::jsonb;
  v_skipped jsonb := '[]'::jsonb;
  v_emails jsonb := '[]'::jsonb;
  v_taken boolean;
begin
  perform public.start_deadline(p_deadline, 'cancellation');
  if p_gateway_minutes is null or p_gateway_minutes not between 0 and 525600 then
    v_issues := v_issues || jsonb_build_object(
      'path', 'gatewayMinutes', 'message', 'gatewayMinutes must be a whole number from 0 to 525600'
    );
  end if;
  if p_upi_direct_hours is null or p_upi_direct_hours not between 0 and 8760 then
    v_issues := v_issues || jsonb_build_object(
      'path', 'upiDirectHours', 'message', 'upiDirectHours must be a whole number from 0 to 8760'
    );
  end if;
  if p_limit is null or p_limit not between 1 and 1000 then
    v_issues := v_issues || jsonb_build_object('path', 'limit', 'message', 'limit must be from 1 to 1000');
  end if;
  if jsonb_array_length(v_issues) > 0 then
    raise exception using errcode = 'OCN00', message = 'VALIDATION_FAILED: the call is invalid', detail = v_issues::text;
  end if;

  -- null: that method's cancellation is off
  v_gateway_before := case when p_gateway_minutes > 0 then now() - make_interval(mins => p_gateway_minutes) end;
  v_upi_direct_before := case when p_upi_direct_hours > 0 then now() - make_interval(hours => p_upi_direct_hours) end;
  if v_gateway_before is null and v_upi_direct_before is null then
    return jsonb_build_object('cancelled', v_cancelled, 'emails', v_emails, 'skipped', v_skipped);
  end if;

  -- 1. The batch: orders awaiting payment past their method's window, with no payment in the ledger that
  --    may still pay them (a payment whose money is due back, refunded or not, pays nothing), oldest first.
  --    An order locked by a move or a payment in progress is skipped, and taken by a later run if it is
  --    still unpaid then.
  for v_order in
    select o.id, o.order_number, o.payment_method
    from public.orders o
    where o.status = 'payment_pending'
      and o.created_at < greatest(v_gateway_before, v_upi_direct_before)
      and (
        (o.payment_method = 'gateway' and o.created_at < v_gateway_before)
        or (o.payment_method = 'upi_direct' and o.created_at < v_upi_direct_before)
      )
      and not exists (
        select 1 from public.payments p
        where p.order_id = o.id
          and not exists (
            select 1 from public.payments d join public.refunds r on r.payment_id = d.id
            where d.provider = p.provider and d.provider_payment_id = p.provider_payment_id
          )
      )
    order by o.created_at
    limit p_limit
    for update of o skip locked
  loop
    v_batch := v_batch || jsonb_build_object(
      'orderId', v_order.id, 'orderNumber', v_order.order_number, 'paymentMethod', v_order.payment_method
    );
  end loop;

  -- 2. Each order of the batch, oldest first, in two passes (an order skipped in the first is tried again
  --    after the others): its store's queue, then its stock rows in (product id, variant id) order, each
  --    taken only if free at once (a try-lock, SKIP LOCKED); an order any of whose locks is busy is left as
  --    it is, for a later run, and reported in `skipped`. The move then finds every row its restock needs
  --    already held. Nothing here waits for a lock, so the batch is never part of a wait cycle and may take
  --    its orders' locks order by order; what it has taken for an order it then skips stays held until it
  --    commits, a moment later.
  for v_pass in 1..2 loop
    v_skipped := '[]'::jsonb;
    for v_order in
      select (b.value ->> 'orderId')::uuid as id, b.value ->> 'orderNumber' as order_number,
        b.value ->> 'paymentMethod' as payment_method, o.store_id
      from jsonb_array_elements(v_batch) with ordinality as b(value, position)
      join public.orders o on o.id = (b.value ->> 'orderId')::uuid
      order by b.position
    loop
      -- close to its deadline the batch takes no more orders: they are the next run's
      if clock_timestamp() >= to_timestamp(current_setting('order_service.deadline')::double precision)
        - interval '250 milliseconds' then
        v_skipped := v_skipped || jsonb_build_object(
          'orderId', v_order.id, 'orderNumber', v_order.order_number, 'paymentMethod', v_order.payment_method
        );
        continue;
      end if;
      v_taken := not exists (
        select 1 from public.order_items i where i.order_id = v_order.id and i.stock_source is not null
      ) or public.try_queue('store/' || v_order.store_id::text);
      if v_taken then
        for v_stock in
          select distinct i.product_id, case when i.stock_source = 'variant' then i.variant_id end as variant_id
          from public.order_items i
          where i.order_id = v_order.id and i.stock_source is not null
          order by 1, 2 nulls first
        loop
          if v_stock.variant_id is null then
            perform 1 from public.products p where p.id = v_stock.product_id for no key update skip locked;
          else
            perform 1 from public.product_variants v where v.id = v_stock.variant_id for no key update skip locked;
          end if;
          if not found then
            v_taken := false;
            exit;
          end if;
        end loop;
      end if;
      if not v_taken then
        v_skipped := v_skipped || jsonb_build_object(
          'orderId', v_order.id, 'orderNumber', v_order.order_number, 'paymentMethod', v_order.payment_method
        );
        continue;
      end if;

      -- 3. The move, as the system's, restocked (rows already held), with the buyer's e-mail.
      v_move := public.move_order_status(
        v_order.id, 'cancelled', 'system',
        case v_order.payment_method
          when 'gateway' then format(
            'No payment arrived through the payment gateway within %s of the order.',
            case when p_gateway_minutes = 1 then '1 minute' else p_gateway_minutes || ' minutes' end
          )
          else format(
            'The UPI transfer was not confirmed within %s of the order.',
            case when p_upi_direct_hours = 1 then '1 hour' else p_upi_direct_hours || ' hours' end
          )
        end
      );
      v_cancelled := v_cancelled || jsonb_build_object(
        'orderId', v_order.id, 'orderNumber', v_order.order_number, 'paymentMethod', v_order.payment_method
      );
      v_emails := v_emails || (v_move -> 'emails');
    end loop;
    -- the second pass tries only what the first skipped
    v_batch := v_skipped;
  end loop;
  if public.deadline_passed() then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before the cancellation could commit';
  end if;
  return jsonb_build_object('cancelled', v_cancelled, 'emails', v_emails, 'skipped', v_skipped);
end;
$$;

revoke execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz) to service_role;
