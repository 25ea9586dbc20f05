/**
 * A real checker for our SQL: plpgsql_check (the Debian package postgresql-15-plpgsql-check) runs over
 * every plpgsql function of the public schema, trigger functions once per table they are bound to, with
 * its extra, performance and security warnings on. Any error or warning fails the test. Where the
 * extension is not installed on the server the test is skipped with a notice; `.ci/run` installs it.
 */
import assert from "node:assert/strict";
import { POSTGRES_SERVER_URL, sharedPostgres } from "./support/databases.ts";

const db = await sharedPostgres();
const available = db !== null &&
  (await db.query("select 1 from pg_available_extensions where name = 'plpgsql_check'")).length > 0;
if (db !== null && !available) {
  console.warn(
    `notice: plpgsql_check is not installed on the PostgreSQL at ${
      new URL(POSTGRES_SERVER_URL).host
    } (apt-get install postgresql-15-plpgsql-check); its test is skipped`,
  );
}

Deno.test({
  name: "[postgres] plpgsql_check finds no error or warning in any plpgsql function of public",
  ignore: !available,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // in a schema of its own, so that public holds only what the migrations made
    await db!.exec(
      "create schema if not exists plpgsql_check; create extension if not exists plpgsql_check with schema plpgsql_check",
    );
    const checks = await db!.query<{ fn: string; relation: string }>(
      `select p.oid::regprocedure::text as fn, coalesce(t.tgrelid, 0)::regclass::text as relation
       from pg_proc p
       join pg_language l on l.oid = p.prolang and l.lanname = 'plpgsql'
       left join (select distinct tgfoid, tgrelid from pg_trigger) t on t.tgfoid = p.oid
       where p.pronamespace = 'public'::regnamespace
       order by 1, 2`,
    );
    const findings: string[] = [];
    for (const { fn, relation } of checks) {
      const lines = await db!.query<{ line: string }>(
        `select line from plpgsql_check.plpgsql_check_function(
           $1::regprocedure, $2::regclass, format => 'text', fatal_errors => false,
           extra_warnings => true, performance_warnings => true, security_warnings => true
         ) as line`,
        [fn, relation === "-" ? 0 : relation],
      );
      findings.push(...lines.map((l) => `${fn}${relation === "-" ? "" : ` on ${relation}`}: ${l.line}`));
    }
    const functions = new Set(checks.map((c) => c.fn)).size;
    const errors = findings.filter((f) => /: error:/.test(f)).length;
    console.log(
      `plpgsql_check: ${functions} functions (${checks.length} checks), ${errors} errors, ${
        findings.length - errors
      } other findings`,
    );
    assert.ok(functions >= 8, `only ${functions} plpgsql functions found`);
    assert.deepEqual(findings, []);
  },
});
