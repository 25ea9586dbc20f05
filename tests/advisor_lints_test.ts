/**
 * The security lints of Supabase's database advisor (github.com/supabase/splinter), restated as queries over
 * what the migrations make in `public`: the dashboard's Security Advisor would flag any row these find. The
 * numbers are splinter's. Its INFO lints are left out on purpose (docs/develop.md, "The database":
 * rls_enabled_no_policy is the design of the private tables).
 */
import assert from "node:assert/strict";
import type { SqlSession } from "../local/sql_database.ts";
import { testDatabases } from "./support/databases.ts";

/** Each lint: its splinter name and a query returning one `finding` per object it would flag. */
const LINTS: [string, string][] = [
  [
    "0011 function_search_path_mutable: a function without its own search_path",
    `select p.oid::regprocedure::text as finding
     from pg_proc p
     where p.pronamespace = 'public'::regnamespace
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
       and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) c where c like 'search_path=%')`,
  ],
  [
    "0028 anon_security_definer_function_executable: a security definer function anon may call",
    `select p.oid::regprocedure::text as finding
     from pg_proc p
     where p.pronamespace = 'public'::regnamespace and p.prosecdef
       and has_function_privilege('anon', p.oid, 'EXECUTE')`,
  ],
  [
    "0029 authenticated_security_definer_function_executable: a security definer function a signed-in user may call",
    `select p.oid::regprocedure::text as finding
     from pg_proc p
     where p.pronamespace = 'public'::regnamespace and p.prosecdef
       and has_function_privilege('authenticated', p.oid, 'EXECUTE')`,
  ],
  [
    "0010 security_definer_view: a view the API roles read with its owner's rights",
    `select c.relname::text as finding
     from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind = 'v'
       and (has_table_privilege('anon', c.oid, 'SELECT') or has_table_privilege('authenticated', c.oid, 'SELECT'))
       and not coalesce(c.reloptions, '{}') && array['security_invoker=1', 'security_invoker=true',
         'security_invoker=yes', 'security_invoker=on']`,
  ],
  [
    "0013 rls_disabled_in_public: a table the API roles read without row level security",
    `select c.relname::text as finding
     from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and not c.relrowsecurity
       and (has_table_privilege('anon', c.oid, 'SELECT') or has_table_privilege('authenticated', c.oid, 'SELECT'))`,
  ],
  [
    "0007 policy_exists_rls_disabled: a policy on a table without row level security",
    `select c.relname || '.' || p.polname as finding
     from pg_policy p join pg_class c on c.oid = p.polrelid
     where c.relnamespace = 'public'::regnamespace and not c.relrowsecurity`,
  ],
  [
    "0024 rls_policy_always_true: a permissive write policy for the API roles that admits every row",
    `select p.tablename || '.' || p.policyname as finding
     from pg_policies p
     where p.schemaname = 'public' and p.permissive = 'PERMISSIVE' and p.cmd <> 'SELECT'
       and (p.roles && array['public', 'anon', 'authenticated']::name[])
       and (p.qual is null or replace(lower(p.qual), ' ', '') in ('true', '(true)', '1=1', '(1=1)')
         or replace(lower(coalesce(p.with_check, '')), ' ', '') in ('true', '(true)', '1=1', '(1=1)'))`,
  ],
  [
    "0003 auth_rls_initplan: a policy that calls auth.uid() or current_setting() once per row",
    `select p.tablename || '.' || p.policyname as finding
     from pg_policies p
     where p.schemaname = 'public'
       and exists (
         select 1 from unnest(array[p.qual, p.with_check]) e(expr)
         where (e.expr ~ 'auth\\.(uid|jwt|role|email)\\(\\)' and lower(e.expr) !~ 'select auth\\.(uid|jwt|role|email)\\(\\)')
           or (e.expr like '%current_setting(%' and lower(e.expr) not like '%select current_setting(%')
       )`,
  ],
];

async function _findings(db: SqlSession, sql: string): Promise<string[]> {
  return (await db.query<{ finding: string }>(`${sql} order by 1`)).map((row) => row.finding);
}

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] the migrations pass the security lints of Supabase's advisor`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      for (const [lint, sql] of LINTS) {
        await t.step(lint, async () => assert.deepEqual(await _findings(db, sql), []));
      }
    },
  });

  Deno.test({
    name: `[${name}] the advisor lints' queries find what they are written for`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      // each lint against objects made to break it, in a transaction that is rolled back
      const broken = `lint_probe_${crypto.randomUUID().slice(0, 8)}`;
      const found: Record<string, string[]> = {};
      const rollback = new Error("rollback");
      await db.asRole("postgres", async (s) => {
        for (
          const statement of [
            `create function public.${broken}() returns integer language sql security definer as 'select 1'`,
            `grant execute on function public.${broken}() to anon, authenticated`,
            `create table public.${broken}_t (id integer)`,
            `grant select on public.${broken}_t to anon`,
            `create view public.${broken}_v as select 1 as one`,
            `grant select on public.${broken}_v to authenticated`,
            `create policy p on public.${broken}_t for update to anon using (true)`,
            `create table public.${broken}_r (id integer)`,
            `alter table public.${broken}_r enable row level security`,
            `create policy q on public.${broken}_r for select to authenticated using (current_setting('x', true) = '1')`,
          ]
        ) await s.query(statement);
        for (const [lint, sql] of LINTS) found[lint.slice(0, 4)] = await _findings(s, sql);
        throw rollback;
      }).catch((error) => {
        if (error !== rollback) throw error;
      });
      assert.deepEqual(found, {
        "0011": [`${broken}()`],
        "0028": [`${broken}()`],
        "0029": [`${broken}()`],
        "0010": [`${broken}_v`],
        "0013": [`${broken}_t`],
        "0007": [`${broken}_t.p`],
        "0024": [`${broken}_t.p`],
        "0003": [`${broken}_r.q`],
      });
    },
  });
}
