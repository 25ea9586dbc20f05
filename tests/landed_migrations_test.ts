/**
 * A migration that has landed on main is never edited (docs/develop.md, "The database"): a database that applied it
 * never applies it again, so an edit reaches new databases only and leaves every deployed one behind. The
 * rule of what "landed" and "its landed version" mean, read from git, is in support/migration_history.ts.
 *
 * Six files were changed after they landed, before this test existed. Each is listed below with the commit
 * whose version is accepted, and why; any other change to a landed file, or a further change to these,
 * fails. A database migrated in between is brought to the later versions by
 * 20261126010100_landed_migration_edits.sql where it would otherwise differ: the second test migrates a
 * database as one migrated at every commit of main would have been (each file as it landed) and compares
 * its schema with one migrated today.
 */
import assert from "node:assert/strict";
import { readMigrations, resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import type { SqlSession } from "../local/sql_database.ts";
import { createTestDatabase, sharedPostgres } from "./support/databases.ts";
import { blobAt, fileAt, readMigrationHistory, workingTreeBlobs } from "./support/migration_history.ts";

/**
 * Edits made to landed migrations, reviewed: the commit whose version stands, and why; `renamedTo`: the file
 * that carries a deleted one's content now (a database migrated at every commit applied it already).
 */
const REVIEWED_EDITS: Record<string, { landed: string; accepted: string; why: string; renamedTo?: string }> =
  {
    "20261122000200_orders.sql": {
      landed: "8b3018db2b3ea1f97a83b347bf911962f2d860ed",
      accepted: "f3e71469f9c7a9effc4334443a5ff7cbc6560bfe",
      why: "order numbers unique per store (orders_store_number_unique), not over all stores " +
        "(orders_order_number_key); 20261126010100 brings a database migrated before it to the later version",
    },
    "20261122000400_email_outbox.sql": {
      landed: "8b3018db2b3ea1f97a83b347bf911962f2d860ed",
      accepted: "30d2ce1217e8f92545f502f3e36a9f6dcd4af96f",
      why: "the drain's index and claims by last try; 20261123000500 drops that index and replaces " +
        "claim_due_emails in either case: no database differs",
    },
    "20261122000600_create_order_function.sql": {
      landed: "8b3018db2b3ea1f97a83b347bf911962f2d860ed",
      accepted: "808ad08154e9621649b5deabc19d05e6c7cb39d4",
      why: "four edits of create_order's body (ce4bb0c, f3e7146, cf01d72, 808ad08) on its first day; every " +
        "later create_order migration replaces the whole function: no database differs",
    },
    "20261123000500_outbox_claim_tokens.sql": {
      landed: "b2eb32affad1d07d5324027f2d38d2d8b854ce30",
      accepted: "d2027addc64b72ea8ebaf981fdef3d0823dbbf3c",
      why: "email_outbox.failures (dead after 10 failed sends, not 10 requests) and the back-off of failed " +
        "rows; 20261126010100 brings a database migrated before it to the later version",
    },
    "20261123000600_create_order_claim_tokens.sql": {
      landed: "b2eb32affad1d07d5324027f2d38d2d8b854ce30",
      accepted: "ecbe2b333f2fd2542ff99f1b18af770ea88a9f7d",
      why: "deleted: 20261123000650_create_order_checks.sql replaced it (and later migrations its " +
        "create_order); a database that applied it keeps version 20261123000600 in its migration history, " +
        "which Supabase's CLI reports as missing locally (docs/develop.md, decisions: migration repair)",
    },
    "20261123000700_outbox_drain_schedule.sql": {
      landed: "3e9b3f046f829f4fc7692f4255b917058e418002",
      accepted: "ecbe2b333f2fd2542ff99f1b18af770ea88a9f7d",
      why: "schedule_outbox_drain calls cron.schedule through execute (for plpgsql_check) instead of " +
        "perform: the same job is scheduled either way, so no migration follows it",
    },
    "20261126010200_superseded_emails.sql": {
      landed: "e2265cd1bc02e5be7a9b20f7f936e94b28da22e7",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why: "renamed after the newest migration projects applied (20261126150400): " +
        "main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), and a version before an applied one is out of order for supabase db push",
      renamedTo: "20261126150500_superseded_emails.sql",
    },
    "20261126010300_outbox_run_claims.sql": {
      landed: "e2265cd1bc02e5be7a9b20f7f936e94b28da22e7",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why: "renamed after the newest migration projects applied (20261126150400): " +
        "main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), and a version before an applied one is out of order for supabase db push",
      renamedTo: "20261126150600_outbox_run_claims.sql",
    },
    "20261126150050_payment_emails.sql": {
      landed: "1548407e6c24356ac59918967e276517cbfb70a5",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why: "renamed after the newest migration projects applied (20261126150400): " +
        "main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), and a version before an applied one is out of order for supabase db push",
      renamedTo: "20261126150700_payment_emails.sql",
    },
    "20261126150000_refunds.sql": {
      landed: "1548407e6c24356ac59918967e276517cbfb70a5",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why:
        "back to the version projects applied (b9311eb): main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), " +
        "so their edits moved to 20261126150700_payment_emails.sql and the writers' later replacements",
    },
    "20261126150100_confirm_payment_refunds.sql": {
      landed: "1548407e6c24356ac59918967e276517cbfb70a5",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why:
        "back to the version projects applied (b9311eb): main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), " +
        "so their edits moved to 20261126150700_payment_emails.sql and the writers' later replacements",
    },
    "20261126150200_cancellation_refunds.sql": {
      landed: "1548407e6c24356ac59918967e276517cbfb70a5",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why:
        "back to the version projects applied (b9311eb): main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), " +
        "so their edits moved to 20261126150700_payment_emails.sql and the writers' later replacements",
    },
    "20261126150400_refund_issuing.sql": {
      landed: "1548407e6c24356ac59918967e276517cbfb70a5",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why:
        "back to the version projects applied (b9311eb): main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), " +
        "so their edits moved to 20261126150700_payment_emails.sql and the writers' later replacements",
    },
    "20261126290400_outbox_deadlines.sql": {
      landed: "ecd6a600e78438b3badf2ece4312ac1193763c3c",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why:
        "a comment naming a migration by its new name; main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), and no statement changed",
    },
    "20261126320100_send_time_emails.sql": {
      landed: "41c00bc20ba8c5c0395c70059dcbe01e5d84ac50",
      accepted: "b193292358f55f4a0aa821c6e1b19363015ea6a5",
      why:
        "a comment naming a migration by its new name; main's commits after the project's CI last accepted b9311eb were refused (they never reached a project), and no statement changed",
    },
  };

/** Differences a database migrated at every commit keeps, each harmless (see REVIEWED_EDITS). */
const HARMLESS_DIFFERENCES: Record<string, string> = {
  "function schedule_outbox_drain()": "20261123000700_outbox_drain_schedule.sql",
};

const history = await readMigrationHistory();
if ("skipped" in history) {
  console.warn(`notice: ${history.skipped}; the landed migrations are not checked`);
}

Deno.test({
  name:
    "supabase/migrations: every migration that landed on main is as it landed (deleted none), but for the reviewed edits listed",
  ignore: "skipped" in history,
  async fn() {
    if ("skipped" in history) return;
    const landed = new Map<string, { sha: string; blob: string }>();
    for (const commit of history.commits) {
      for (const [name, blob] of commit.files) {
        if (!landed.has(name)) landed.set(name, { sha: commit.sha, blob });
      }
    }
    const inHistory = new Set(history.commits.map((commit) => commit.sha));
    const tree = await workingTreeBlobs();
    const problems: string[] = [];
    for (const [name, first] of landed) {
      const reviewed = REVIEWED_EDITS[name];
      if (reviewed) {
        assert.equal(first.sha, reviewed.landed, `${name} landed in ${first.sha}, not ${reviewed.landed}`);
      }
      // a reviewed edit stands once its commit is in this history (a branch may predate it)
      const expected = reviewed && inHistory.has(reviewed.accepted)
        ? await blobAt(reviewed.accepted, name)
        : first.blob;
      const actual = tree.get(name) ?? null;
      if (actual === expected) continue;
      problems.push(
        actual === null
          ? `${name} was deleted after it landed in ${first.sha.slice(0, 7)}`
          : `${name} differs from the version that landed in ${first.sha.slice(0, 7)}: write a new migration`,
      );
    }
    assert.deepEqual(problems, []);
  },
});

Deno.test({
  name:
    "supabase/migrations: a migration that has not landed comes after every one that has (supabase db push applies them in order)",
  ignore: "skipped" in history,
  async fn() {
    if ("skipped" in history) return;
    const landed = new Set(history.commits.flatMap((commit) => [...commit.files.keys()]));
    const newest = [...landed].sort().at(-1) ?? "";
    const early = [...(await workingTreeBlobs()).keys()].filter((name) => !landed.has(name) && name < newest);
    assert.deepEqual(early, []);
  },
});

/**
 * The schema of `public` as objects and their definitions: tables (row level security, grants), columns
 * (type, null, default, grants; not their order), constraints, indexes, triggers, policies, enum types and
 * functions (whole definition, grants, owner).
 */
async function schemaOf(db: SqlSession): Promise<Map<string, string>> {
  const rows = await db.query<{ key: string; definition: string }>(`
    select 'table public.' || c.relname as key,
      concat_ws(' ', c.relrowsecurity, c.relacl::text) as definition
    from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    union all
    select 'column public.' || c.relname || '.' || a.attname,
      concat_ws(' ', format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,
        pg_get_expr(d.adbin, d.adrelid), a.attacl::text)
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
    union all
    select 'constraint public.' || c.relname || '.' || k.conname, pg_get_constraintdef(k.oid)
    from pg_constraint k join pg_class c on c.oid = k.conrelid where c.relnamespace = 'public'::regnamespace
    union all
    select 'index public.' || i.indexname, i.indexdef from pg_indexes i where i.schemaname = 'public'
    union all
    select 'trigger public.' || c.relname || '.' || t.tgname, pg_get_triggerdef(t.oid)
    from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    union all
    select 'policy public.' || p.tablename || '.' || p.policyname,
      concat_ws(' ', p.permissive, p.roles::text, p.cmd, p.qual, p.with_check)
    from pg_policies p where p.schemaname = 'public'
    union all
    select 'type public.' || t.typname, string_agg(e.enumlabel, ',' order by e.enumsortorder)
    from pg_type t join pg_enum e on e.enumtypid = t.oid where t.typnamespace = 'public'::regnamespace
    group by t.typname
    union all
    select 'function ' || p.oid::regprocedure::text,
      concat_ws(' ', pg_get_functiondef(p.oid), p.proacl::text, pg_get_userbyid(p.proowner))
    from pg_proc p where p.pronamespace = 'public'::regnamespace`);
  return new Map(rows.map((row) => [row.key, row.definition]));
}

/** Where two definitions part: the first line that differs, today's and then. */
function _firstDifference(today = "(none)", then = "(none)"): string {
  const a = today.split("\n");
  const b = then.split("\n");
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i < 0 ? a.length : i;
  return `line ${at + 1}: today ${JSON.stringify(a[at] ?? "")}, migrated at every commit ${
    JSON.stringify(b[at] ?? "")
  }`;
}

Deno.test({
  name:
    "[postgres] a database migrated at every commit of main (each migration as it landed) has the schema of one migrated today",
  ignore: "skipped" in history || (await sharedPostgres()) === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    if ("skipped" in history) return;
    // each commit's new files in the order the CLI applies them, as it first saw them; then this
    // checkout's files that have not landed yet
    // a renamed file's content was applied under its old name
    const renamed = new Set(Object.values(REVIEWED_EDITS).map((edit) => edit.renamedTo));
    const migrations: { name: string; sql: string }[] = [];
    const applied = new Set<string>();
    for (const commit of history.commits) {
      const added = [...commit.files.keys()].filter((name) => !applied.has(name) && !renamed.has(name));
      for (const name of added.sort()) {
        migrations.push({ name, sql: await fileAt(commit.sha, name) });
        applied.add(name);
      }
    }
    for (const migration of await readMigrations()) {
      if (!applied.has(migration.name) && !renamed.has(migration.name)) migrations.push(migration);
    }
    const { url } = await createTestDatabase();
    const everyCommit = openPostgres(url, 2);
    try {
      await resetDatabase(everyCommit, { migrations, seed: false });
      const today = await schemaOf((await sharedPostgres())!);
      const then = await schemaOf(everyCommit);
      const differences: string[] = [];
      for (const key of new Set([...today.keys(), ...then.keys()])) {
        if (today.get(key) === then.get(key) || HARMLESS_DIFFERENCES[key]) continue;
        differences.push(`${key}: ${_firstDifference(today.get(key), then.get(key))}`);
      }
      assert.deepEqual(differences.sort(), []);
    } finally {
      await everyCommit.close();
    }
  },
});
