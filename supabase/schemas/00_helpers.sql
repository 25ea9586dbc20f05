-- Helpers every later file uses: the time-ordered keys of the rows written per order, and the trigger that
-- keeps updated_at honest.
--
-- supabase/schemas/ is the database as the migrations leave it, one file per thing, applied in the order of
-- the files' names (supabase/config.toml, [db.migrations] schema_paths). To change the database, edit the
-- file here and run `npx -y deno@2.9.6 task db:diff <name>`, which writes the migration that takes a
-- database from the migrations to these files (docs/develop.md, "How a database change is made").

-- Time-ordered keys (UUIDv7, RFC 9562 section 5.7). Random UUIDv4 keys put each new order's rows on a random
-- page of every primary-key index, so after each checkpoint every order dirtied fresh index pages and paid
-- their full-page images in the WAL (about 24 KB per order at 100,000 orders). A UUIDv7 starts with the Unix
-- time in milliseconds, so consecutive orders land on the same rightmost index pages.
-- PostgreSQL 15 has no generator (uuidv7() arrives in 18), so this one is ours, on PGlite and PostgreSQL
-- alike: a random (version 4) UUID whose first 48 bits are replaced by the time and whose version nibble
-- becomes 7; the variant bits (10) of the random UUID stay. Within one millisecond the order is random, which
-- is all an index needs: the pages written are the same few.
create or replace function public.uuid_v7()
returns uuid
language sql
volatile
parallel safe
set search_path = ''
as $$
  select encode(
    set_bit(
      set_bit(
        overlay(
          uuid_send(gen_random_uuid())
          placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
          from 1 for 6
        ),
        52, 1
      ),
      53, 1
    ),
    'hex'
  )::uuid;
$$;

revoke execute on function public.uuid_v7() from public, anon, authenticated, service_role;
grant execute on function public.uuid_v7() to service_role;

-- One trigger function keeps updated_at honest on every table that has the column.
create or replace function public.touch_updated_at()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end;
$$;

revoke execute on function public.touch_updated_at() from public, anon, authenticated, service_role;
