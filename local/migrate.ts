/**
 * Brings a database to the state `supabase db reset` leaves: Supabase's roles where missing, then every
 * migration in order, then the seed.
 */
import type { SqlDatabase } from "./sql_database.ts";

const SUPABASE_DIR = new URL("../supabase/", import.meta.url);

/**
 * The roles and default privileges a Supabase database has before any migration. The default
 * privileges matter: on Supabase every new table and function is granted to anon, so our migrations
 * must revoke explicitly, and here they are tested against the same defaults.
 */
export const SUPABASE_ROLES_SQL = `
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
end
$$;
grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
`;

/** Drops everything the migrations created, so a reset works on a database that has them already. */
const DROP_PUBLIC_SQL = `
drop schema if exists public cascade;
create schema public;
grant all on schema public to public;
`;

/** The migration files, in the order Supabase applies them (by their timestamp prefix). */
export async function readMigrations(): Promise<{ name: string; sql: string }[]> {
  const dir = new URL("migrations/", SUPABASE_DIR);
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".sql")) names.push(entry.name);
  }
  names.sort();
  return await Promise.all(
    names.map(async (name) => ({ name, sql: await Deno.readTextFile(new URL(name, dir)) })),
  );
}

/** The seed file's text. */
export function readSeed(): Promise<string> {
  return Deno.readTextFile(new URL("seed.sql", SUPABASE_DIR));
}

/** Options of {@linkcode resetDatabase}. */
export interface ResetOptions {
  /** Drop the public schema first (an existing database). */
  dropExisting?: boolean;
  /** Apply supabase/seed.sql after the migrations (default true). */
  seed?: boolean;
}

/** Applies roles, migrations and (by default) the seed; each migration in its own transaction. */
export async function resetDatabase(db: SqlDatabase, options: ResetOptions = {}): Promise<void> {
  if (options.dropExisting) await db.exec(DROP_PUBLIC_SQL);
  await db.exec(SUPABASE_ROLES_SQL);
  for (const migration of await readMigrations()) {
    try {
      await db.execTransaction(migration.sql);
    } catch (error) {
      throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  if (options.seed ?? true) await db.exec(await readSeed());
}
