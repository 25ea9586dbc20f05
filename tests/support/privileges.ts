/** What the API roles may do in `public`, as one sorted list: the migrations' grants, compared across setups. */
import type { SqlSession } from "../../local/sql_database.ts";

/**
 * Every privilege that PUBLIC, anon, authenticated or service_role holds on a table, column, sequence or
 * function of `public`, as `<kind> <object> <grantee> <privilege>` lines, sorted.
 */
export async function apiRolePrivileges(db: SqlSession): Promise<string[]> {
  const rows = await db.query<{ line: string }>(
    `with grants as (
       select case c.relkind when 'S' then 'sequence' else 'table' end as kind, c.relname::text as object,
         a.grantee, a.privilege_type
       from pg_class c cross join lateral aclexplode(c.relacl) a
       where c.relnamespace = 'public'::regnamespace
       union all
       select 'column', c.relname || '.' || att.attname, a.grantee, a.privilege_type
       from pg_attribute att join pg_class c on c.oid = att.attrelid
         cross join lateral aclexplode(att.attacl) a
       where c.relnamespace = 'public'::regnamespace
       union all
       select 'function', p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')', a.grantee,
         a.privilege_type
       from pg_proc p cross join lateral aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
       where p.pronamespace = 'public'::regnamespace
     )
     select kind || ' ' || object || ' ' || case when grantee = 0 then 'PUBLIC' else grantee::regrole::text end
       || ' ' || privilege_type as line
     from grants
     where grantee = 0 or grantee in (select oid from pg_roles where rolname in ('anon', 'authenticated', 'service_role'))
     order by 1`,
  );
  return rows.map((row) => row.line);
}
