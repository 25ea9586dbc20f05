-- Orders nobody paid are cancelled after a time, as a checkout platform releases what an abandoned checkout
-- held: a `gateway` order still `payment_pending` UNPAID_GATEWAY_ORDER_MINUTES after it was placed (default
-- 30: the buyer left Razorpay Checkout), a `upi_direct` one UNPAID_UPI_DIRECT_ORDER_HOURS after (default 72:
-- the seller never confirmed the transfer); a window of 0 turns its method's cancellation off. The outbox
-- drain's run (every minute from pg_cron on Supabase, `deno task outbox` locally) calls cancel_unpaid_orders
-- before it sends: each order is moved through move_order_status as the system's move, so the history says
-- `system`, the restock trigger puts its stock back, and the buyer's `cancelled` e-mail is written and
-- claimed for the run to send.
--
-- An order with a payment in the ledger whose money is not due back is left alone: money arrived for it,
-- and a person reviews it. An order whose only payments are refunded or due back (a ₹1 payment,
-- amount_mismatch, whose refund is on its way) is still unpaid: the clock cancels it, restocks it and
-- e-mails the buyer (who reads that the money is being refunded). A payment counts as due back when its
-- deciding row has a refund, whatever that refund's status: every event of the payment shares it.
--
-- It never waits for a lock held by anyone: each order of the batch is taken only if all it needs is free at
-- once: its row (SKIP LOCKED), its store's queue (try_queue) and its stock rows in (product id, variant id)
-- order (FOR NO KEY UPDATE SKIP LOCKED). An order one of whose locks is busy is left as it is and reported
-- in `skipped`; the orders after it go on. Those skipped are tried once more after the others, and what is
-- still busy is the next run's. Near its deadline (250 ms before it) the batch takes no new order. The moves
-- then find every row their restock needs already held. One transaction, rather than one order per
-- transaction: the drain's run stays one round trip, and a writer that never waits cannot be part of a wait
-- cycle. Nor a subtransaction per order, which would give back what a skipped order took: each would take a
-- transaction id, and past 64 of them in a batch of 100 every other session's snapshot checks would read
-- pg_subtrans while the batch runs; what a skipped order took is held instead until the batch commits, a
-- moment later (it waits for nothing).
--
-- returns { cancelled: [{ orderId, orderNumber, paymentMethod }], emails: [...],
--   skipped: [{ orderId, orderNumber, paymentMethod }] }
-- SQLSTATEs: OCN00 VALIDATION_FAILED (detail: [{ path, message }]), OCT00 DEADLINE_EXCEEDED.
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
  from public, anon, authenticated, service_role;
grant execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz) to service_role;
