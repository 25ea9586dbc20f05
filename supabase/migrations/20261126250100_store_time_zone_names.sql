-- A store's time zone is a location's zone of the IANA database, Area/Location (Asia/Kolkata,
-- America/Argentina/Buenos_Aires), or UTC. is_time_zone (20261126000200_store_time_zone.sql) accepted every
-- name of pg_timezone_names, which also lists what is no location's zone:
-- - the posix/ and right/ trees (copies of the zones, the right/ ones counting leap seconds, which no clock
--   of ours does), and localtime, posixrules and Factory (the server's own files, not zones at all);
-- - the legacy names: POSIX-style rules such as EST5EDT, CST6CDT or EST, whose meaning tzdata 2024b
--   changed (they became links to America/New_York and others, with that city's history); Etc/GMT+5,
--   five hours *behind* UTC, the reverse of what a reader expects; and the backward-compatibility aliases
--   without an area (US/Eastern, Japan, GB, Zulu), which tzdata keeps only for old systems.
-- Every one of them has an Area/Location name that says the same thing plainly, and the pages and e-mails
-- show dates with it (Intl, whose list of names differs from the server's in exactly these corners), so
-- the check accepts only those and UTC. deno task store:add checks the same rule, and that Intl takes the
-- name, before it writes.
create or replace function public.is_time_zone(p_name text)
returns boolean
language sql
stable
set search_path = ''
as $$
  select p_name is not null
    and (p_name = 'UTC' or p_name ~ '^(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)?$')
    and exists (select 1 from pg_catalog.pg_timezone_names z where z.name = p_name);
$$;

revoke execute on function public.is_time_zone(text) from public, anon, authenticated;
grant execute on function public.is_time_zone(text) to service_role;

-- a check constraint is not checked again when its function changes: a store that had one of the names
-- refused now must be given its Area/Location name first, or its next update would fail on it
do $$
declare
  v_refused text;
begin
  select string_agg(format('%s (%s)', s.id, s.time_zone), ', ' order by s.id) into v_refused
  from public.stores s where not public.is_time_zone(s.time_zone);
  if v_refused is not null then
    raise exception 'stores with a time zone that is no Area/Location name: %', v_refused
      using hint = 'update public.stores set time_zone = ''<Area/Location, e.g. America/New_York>'' where id = ''<id>''; then run the migrations again';
  end if;
end
$$;
