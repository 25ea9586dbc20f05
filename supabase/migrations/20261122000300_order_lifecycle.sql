-- The order lifecycle of the specification (part 3), enforced where no client can skip it.
-- Allowed moves:
--   payment_pending -> paid | cancelled
--   paid            -> processing | cancelled
--   processing      -> shipped | cancelled
--   shipped         -> delivered
--   pending         -> payment_pending | cancelled   (our reading: the spec leaves pending's rules unstated)
-- delivered and cancelled are final. Every status an order takes is appended to order_status_history.

create table public.order_status_history (
  id bigint generated always as identity primary key,
  order_id uuid not null references public.orders (id) on delete cascade,
  from_status public.order_status,
  to_status public.order_status not null,
  changed_by text not null default current_user,
  changed_at timestamptz not null default now()
);
create index order_status_history_order_id_idx on public.order_status_history (order_id, id);

alter table public.order_status_history enable row level security;
revoke all on public.order_status_history from anon, authenticated;
grant all on public.order_status_history to service_role;

-- The transition table as data, so the rule is read in one place.
create or replace function public.order_status_transition_allowed(
  p_from public.order_status,
  p_to public.order_status
)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select (p_from, p_to) in (
    ('pending'::public.order_status, 'payment_pending'::public.order_status),
    ('pending', 'cancelled'),
    ('payment_pending', 'paid'),
    ('payment_pending', 'cancelled'),
    ('paid', 'processing'),
    ('paid', 'cancelled'),
    ('processing', 'shipped'),
    ('processing', 'cancelled'),
    ('shipped', 'delivered')
  );
$$;

create or replace function public.enforce_order_status_transition()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    if new.status not in ('pending', 'payment_pending') then
      raise exception using
        errcode = 'OCT01',
        message = format('INVALID_STATUS_TRANSITION: an order cannot start as %s', new.status);
    end if;
  elsif new.status is distinct from old.status
    and not public.order_status_transition_allowed(old.status, new.status) then
    raise exception using
      errcode = 'OCT01',
      message = format('INVALID_STATUS_TRANSITION: %s -> %s is not allowed', old.status, new.status),
      hint = 'see order_status_transition_allowed()';
  end if;
  return new;
end;
$$;

create or replace function public.record_order_status_change()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  insert into public.order_status_history (order_id, from_status, to_status)
  values (new.id, case when tg_op = 'UPDATE' then old.status end, new.status);
  return null;
end;
$$;

create trigger orders_enforce_status_transition
  before insert or update of status on public.orders
  for each row execute function public.enforce_order_status_transition();

create trigger orders_record_status_insert
  after insert on public.orders
  for each row execute function public.record_order_status_change();

create trigger orders_record_status_change
  after update of status on public.orders
  for each row when (new.status is distinct from old.status)
  execute function public.record_order_status_change();

revoke execute on function public.order_status_transition_allowed(public.order_status, public.order_status)
  from public, anon, authenticated;
grant execute on function public.order_status_transition_allowed(public.order_status, public.order_status)
  to service_role;
revoke execute on function public.enforce_order_status_transition() from public, anon, authenticated;
revoke execute on function public.record_order_status_change() from public, anon, authenticated;
