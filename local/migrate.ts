/**
 * Brings a database to the state `supabase db reset` leaves: Supabase's roles where missing, then every
 * migration in order, then the seed.
 */
import type { SqlDatabase } from "./sql_database.ts";

const SUPABASE_DIR = new URL("../supabase/", import.meta.url);

/**
 * The roles a Supabase database has before any migration, their usage of the public schema, and the
 * auth.uid() that row level security policies call (schema auth, where missing). Which
 * privileges new objects get by default is a separate choice: see {@linkcode DefaultPrivileges}.
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

-- Supabase's auth.uid(), which the row level security policies call: the sub claim of the request's JWT,
-- as PostgREST sets it per request (set_config('request.jwt.claims', ..., true)). A setting once set keeps
-- an empty value after its transaction, hence the nullif before the cast. Created only where missing: on
-- a Supabase database (the CLI's, say) the auth schema is Supabase's own and is left alone.
do $$
begin
  if to_regprocedure('auth.uid()') is null then
    create schema if not exists auth;
    grant usage on schema auth to anon, authenticated, service_role;
    create function auth.uid() returns uuid language sql stable as $uid$
      select coalesce(
        nullif(current_setting('request.jwt.claim.sub', true), ''),
        (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
      )::uuid
    $uid$;
    grant execute on function auth.uid() to anon, authenticated, service_role;
  end if;
end
$$;
`;

/**
 * What a new table, function or sequence in `public` is granted without a word from the migrations:
 * - `none`: nothing (PostgreSQL's own defaults: EXECUTE on functions to PUBLIC, which every migration
 *   revokes). Supabase's default for new projects since 30 May 2026, and for every project from 30 October
 *   2026: a migration must grant what each role needs.
 * - `permissive`: everything to anon, authenticated and service_role, as older projects were set up; a
 *   migration must revoke what anon and authenticated must not have.
 * The migrations are tested under both, so they state every grant and every revoke themselves.
 */
export type DefaultPrivileges = "none" | "permissive";

const _DEFAULT_PRIVILEGES_SQL: Record<DefaultPrivileges, string> = {
  none: `
alter default privileges in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges in schema public revoke all on functions from anon, authenticated, service_role;
alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;
`,
  permissive: `
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
`,
};

/**
 * What a Supabase database has before its first migration, as this runner sets it up: the roles, auth.uid()
 * and `defaultPrivileges`. The migrations, and the declarative schemas (declarative_schemas.ts), start here.
 */
export function supabasePreludeSql(defaultPrivileges: DefaultPrivileges): string {
  return SUPABASE_ROLES_SQL + _DEFAULT_PRIVILEGES_SQL[defaultPrivileges];
}

/** Drops everything the migrations created, so a reset works on a database that has them already. */
const DROP_PUBLIC_SQL = `
drop schema if exists public cascade;
create schema public;
-- as a new database has it (PostgreSQL 15: PUBLIC may use, not create); the roles get usage below
grant usage on schema public to public;
`;

/**
 * Where Supabase's CLI records the migrations it applied (`supabase db reset`, `supabase migration up`),
 * in its own shape: a migration's version is its file's timestamp prefix. Recorded here too, in each
 * migration's own transaction, so `deno task dev` can tell a database that lacks some (see
 * migration_status.ts) whoever migrated it. No API role is granted anything on it.
 */
const MIGRATION_RECORD_SQL = `
create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (version text not null primary key);
alter table supabase_migrations.schema_migrations add column if not exists statements text[];
alter table supabase_migrations.schema_migrations add column if not exists name text;
`;

/** With the public schema dropped, no migration is applied any more. */
const FORGET_MIGRATIONS_SQL = `
do $$
begin
  if to_regclass('supabase_migrations.schema_migrations') is not null then
    delete from supabase_migrations.schema_migrations;
  end if;
end
$$;
`;

/** A migration file's version (its timestamp prefix) and name, as Supabase's CLI splits them. */
export function migrationVersion(fileName: string): { version: string; name: string } {
  const match = /^(\d+)_(.+)\.sql$/.exec(fileName);
  if (!match) throw new Error(`a migration file is named <timestamp>_<name>.sql: got ${fileName}`);
  return { version: match[1], name: match[2] };
}

function _recordMigrationSql(fileName: string): string {
  const { version, name } = migrationVersion(fileName);
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return `insert into supabase_migrations.schema_migrations (version, name) values (${literal(version)}, ${
    literal(name)
  }) on conflict (version) do nothing;`;
}

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
  /** The default privileges the migrations run under (default `none`, as new Supabase projects). */
  defaultPrivileges?: DefaultPrivileges;
  /** The migrations to apply, in this order, instead of supabase/migrations' (a test of an older history). */
  migrations?: { name: string; sql: string }[];
}

/**
 * Applies roles, default privileges, migrations and (by default) the seed; each migration in its own
 * transaction.
 */
export async function resetDatabase(db: SqlDatabase, options: ResetOptions = {}): Promise<void> {
  if (options.dropExisting) await db.exec(DROP_PUBLIC_SQL + FORGET_MIGRATIONS_SQL);
  await db.exec(supabasePreludeSql(options.defaultPrivileges ?? "none") + MIGRATION_RECORD_SQL);
  for (const migration of options.migrations ?? await readMigrations()) {
    try {
      await db.execTransaction(`${migration.sql}\n;${_recordMigrationSql(migration.name)}`);
    } catch (error) {
      throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  if (options.seed ?? true) await db.exec(await readSeed());
}
