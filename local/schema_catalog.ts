/**
 * The schema `public` as PostgreSQL's catalogs hold it, one entry per object: what two databases must share
 * to be the same database (tests/declarative_schemas_test.ts compares the one the migrations leave with the
 * one supabase/schemas/ describes).
 */
import type { SqlSession } from "./sql_database.ts";

/**
 * Every object of `public` and its definition, by key (`column public.orders.status`):
 * - tables and views: row level security (and whether it is forced), grants, owner, a view's query;
 * - columns: position among the live columns, type, not null, identity, generated, default, collation, grants;
 * - constraints (whole definition: NOT VALID and DEFERRABLE included), indexes, triggers (and whether enabled);
 * - policies (permissive, roles, command, using, with check);
 * - enum types, sequences (options, grants, owner);
 * - functions: pg_get_functiondef (header and body as written), grants, owner;
 * - comments on any of them;
 * - default privileges (what later objects will be granted), which no diff writes.
 */
export async function schemaCatalog(db: SqlSession): Promise<Map<string, string>> {
  const rows = await db.query<{ key: string; definition: string }>(`
    select 'relation public.' || c.relname as key,
      concat_ws(' | ', c.relkind::text, c.relrowsecurity, c.relforcerowsecurity, ${_sortedAcl("c.relacl")},
        pg_get_userbyid(c.relowner), case when c.relkind in ('v', 'm') then pg_get_viewdef(c.oid) end) as definition
    from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f')
    union all
    select 'column public.' || c.relname || '.' || a.attname,
      concat_ws(' | ',
        row_number() over (partition by c.oid order by a.attnum),
        format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated,
        pg_get_expr(d.adbin, d.adrelid), co.collname, ${_sortedAcl("a.attacl")})
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    left join pg_collation co on co.oid = a.attcollation and a.attcollation <> 100
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f')
      and a.attnum > 0 and not a.attisdropped
    union all
    select 'constraint public.' || c.relname || '.' || k.conname, pg_get_constraintdef(k.oid)
    from pg_constraint k join pg_class c on c.oid = k.conrelid where c.relnamespace = 'public'::regnamespace
    union all
    select 'index public.' || i.indexname, i.indexdef from pg_indexes i where i.schemaname = 'public'
    union all
    select 'trigger public.' || c.relname || '.' || t.tgname, concat_ws(' | ', pg_get_triggerdef(t.oid), t.tgenabled)
    from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    union all
    select 'policy public.' || p.tablename || '.' || p.policyname,
      concat_ws(' | ', p.permissive, p.roles::text, p.cmd, p.qual, p.with_check)
    from pg_policies p where p.schemaname = 'public'
    union all
    select 'type public.' || t.typname, string_agg(e.enumlabel, ',' order by e.enumsortorder)
    from pg_type t join pg_enum e on e.enumtypid = t.oid where t.typnamespace = 'public'::regnamespace
    group by t.typname
    union all
    select 'sequence public.' || c.relname,
      concat_ws(' | ', format_type(s.seqtypid, null), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache,
        s.seqcycle, ${_sortedAcl("c.relacl")}, pg_get_userbyid(c.relowner))
    from pg_sequence s join pg_class c on c.oid = s.seqrelid where c.relnamespace = 'public'::regnamespace
    union all
    select 'function ' || p.oid::regprocedure::text,
      concat_ws(' | ', pg_get_functiondef(p.oid), ${_sortedAcl("p.proacl")}, pg_get_userbyid(p.proowner))
    from pg_proc p where p.pronamespace = 'public'::regnamespace
    union all
    select 'comment on relation public.' || c.relname
        || coalesce(' column ' || (select a.attname from pg_attribute a
          where a.attrelid = c.oid and a.attnum = d.objsubid and d.objsubid > 0), ''),
      d.description
    from pg_description d join pg_class c on d.classoid = 'pg_class'::regclass and c.oid = d.objoid
    where c.relnamespace = 'public'::regnamespace
    union all
    select 'comment on function ' || p.oid::regprocedure::text, d.description
    from pg_description d join pg_proc p on d.classoid = 'pg_proc'::regclass and p.oid = d.objoid
    where p.pronamespace = 'public'::regnamespace
    union all
    select 'comment on type public.' || t.typname, d.description
    from pg_description d join pg_type t on d.classoid = 'pg_type'::regclass and t.oid = d.objoid
    where t.typnamespace = 'public'::regnamespace
    union all
    select 'comment on constraint public.' || c.relname || '.' || k.conname, d.description
    from pg_description d join pg_constraint k on d.classoid = 'pg_constraint'::regclass and k.oid = d.objoid
    join pg_class c on c.oid = k.conrelid
    where c.relnamespace = 'public'::regnamespace
    union all
    select 'comment on trigger public.' || c.relname || '.' || t.tgname, d.description
    from pg_description d join pg_trigger t on d.classoid = 'pg_trigger'::regclass and t.oid = d.objoid
    join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = 'public'::regnamespace
    union all
    select 'comment on policy public.' || c.relname || '.' || po.polname, d.description
    from pg_description d join pg_policy po on d.classoid = 'pg_policy'::regclass and po.oid = d.objoid
    join pg_class c on c.oid = po.polrelid
    where c.relnamespace = 'public'::regnamespace
    union all
    select 'comment on schema public', d.description
    from pg_description d where d.classoid = 'pg_namespace'::regclass and d.objoid = 'public'::regnamespace
    union all
    select 'default privileges of ' || pg_get_userbyid(d.defaclrole) || ' in '
        || coalesce(d.defaclnamespace::regnamespace::text, 'every schema') || ' on ' || d.defaclobjtype::text,
      ${_sortedAcl("d.defaclacl")}
    from pg_default_acl d`);
  return new Map(rows.map((row) => [row.key, row.definition]));
}

/** The keys whose definitions differ between `a` and `b` (or exist in one only), each with where they part. */
export function catalogDifferences(
  a: Map<string, string>,
  b: Map<string, string>,
  names: { a: string; b: string },
): string[] {
  const differences: string[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (a.get(key) === b.get(key)) continue;
    differences.push(`${key}: ${_firstDifference(a.get(key), b.get(key), names)}`);
  }
  return differences;
}

function _firstDifference(a = "(none)", b = "(none)", names: { a: string; b: string }): string {
  const left = a.split("\n");
  const right = b.split("\n");
  const i = left.findIndex((line, n) => line !== right[n]);
  const at = i < 0 ? left.length : i;
  return `line ${at + 1}: ${names.a} ${JSON.stringify(left[at] ?? "")}, ${names.b} ${
    JSON.stringify(right[at] ?? "")
  }`;
}

/** A privilege list in a fixed order: the same grants given in another order are the same privileges. */
function _sortedAcl(column: string): string {
  return `(select array_agg(item::text order by item::text) from unnest(${column}) item)::text`;
}
