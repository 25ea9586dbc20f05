-- A store's time zone (an IANA name such as Asia/Kolkata): its calendar decides the year an order's number
-- counts in (contract, "Success: 200": an order placed at 00:30 IST on 1 January is the new year's), and the
-- dates its pages show. Existing stores are Indian stores: the default is Asia/Kolkata.

-- Whether p_name is a time zone name of the IANA database as this server knows it (pg_timezone_names), not
-- merely a string PostgreSQL would accept as a zone (a POSIX rule such as 'UTC+5' or '+05:30' is no IANA
-- name, and its sign is the reverse of what a reader expects).
create or replace function public.is_time_zone(p_name text)
returns boolean
language sql
stable
set search_path = ''
as $$
  select p_name is not null
    and p_name ~ '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$'
    and exists (select 1 from pg_catalog.pg_timezone_names z where z.name = p_name);
$$;

revoke execute on function public.is_time_zone(text) from public, anon, authenticated;
grant execute on function public.is_time_zone(text) to service_role;

alter table public.stores add column time_zone text not null default 'Asia/Kolkata'
  constraint stores_time_zone_is_iana check (public.is_time_zone(time_zone));

-- A storefront or order page may show dates in the store's zone, as it may show its currency.
grant select (time_zone) on public.stores to anon, authenticated;
