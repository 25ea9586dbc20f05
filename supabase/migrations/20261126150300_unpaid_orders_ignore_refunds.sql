-- The unpaid-order clock ignores refunded and refund-due payments (cancel_unpaid_orders replaced whole from
-- 20261126000500_unpaid_orders_in_lock_order.sql, its lock order and deadline kept): it left alone an order
-- with any payment in the ledger, so a ₹1 payment (amount_mismatch) held the order's stock until a person
-- looked. Such a payment's money is now due back (its refund row, 20261126150100), and an order whose only
-- payments are refunded or due back is still unpaid: the clock cancels it, restocks it and e-mails the buyer
-- (who reads that the money is being refunded). A payment counts as due back when its deciding row has a
-- refund, whatever that refund's status: every event of the payment shares it.
--
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
  v_ids uuid[];
  v_store_id uuid;
  v_stock record;
  v_order record;
  v_move jsonb;
  v_cancelled jsonb := '[]'::jsonb;
  v_emails jsonb := '[]'::jsonb;
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
    return jsonb_build_object('cancelled', v_cancelled, 'emails', v_emails);
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
  select coalesce(array_agg((e ->> 'orderId')::uuid), '{}') into v_ids from jsonb_array_elements(v_batch) e;

  -- 2. The queues of the stores whose stock the batch gives back, in store id order.
  for v_store_id in
    select distinct o.store_id
    from public.orders o
    where o.id = any (v_ids)
      and exists (select 1 from public.order_items i where i.order_id = o.id and i.stock_source is not null)
    order by 1
  loop
    perform public.join_queue('store/' || v_store_id::text);
  end loop;

  -- 3. Their stock rows, in (product id, variant id) order, a product's own row before its variants'.
  for v_stock in
    select distinct i.product_id, case when i.stock_source = 'variant' then i.variant_id end as variant_id
    from public.order_items i
    where i.order_id = any (v_ids) and i.stock_source is not null
    order by 1, 2 nulls first
  loop
    perform public.bound_lock_wait();
    if v_stock.variant_id is null then
      perform 1 from public.products p where p.id = v_stock.product_id for no key update;
    else
      perform 1 from public.product_variants v where v.id = v_stock.variant_id for no key update;
    end if;
  end loop;

  -- 4. The moves, oldest first: each as the system's, restocked (rows already held), with the buyer's e-mail.
  for v_order in
    select (b.value ->> 'orderId')::uuid as id, b.value ->> 'orderNumber' as order_number,
      b.value ->> 'paymentMethod' as payment_method
    from jsonb_array_elements(v_batch) with ordinality as b(value, position)
    order by b.position
  loop
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
  if p_deadline is not null and clock_timestamp() >= p_deadline then
    raise exception using errcode = 'OCT00', message = 'DEADLINE_EXCEEDED: the caller gave up before the cancellation could commit';
  end if;
  return jsonb_build_object('cancelled', v_cancelled, 'emails', v_emails);
end;
$$;

revoke execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.cancel_unpaid_orders(integer, integer, integer, timestamptz) to service_role;
