/**
 * The cron migration: it applies cleanly and schedules nothing where pg_cron and pg_net are missing (plain
 * PostgreSQL, PGlite), and where they exist it schedules a job whose SQL posts to outbox-drain with the key
 * from Vault. The extensions are played by stand-ins that record what they are given (cron.schedule,
 * net.http_post, vault.decrypted_secrets); the request the job would send is then replayed against the
 * local stack's outbox-drain, which must accept it. A drain run, its budget, one request's time-out and its
 * closing calls, answers within the time-out that job gives pg_net.
 */
import assert from "node:assert/strict";
import {
  DRAIN_CLOSING_MS,
  DRAIN_SCHEDULE_TIMEOUT_MS,
  MAX_DRAIN_RUN_MS,
  parseConfig,
} from "../supabase/functions/_shared/config.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const STAND_INS = `
create schema cron;
create table cron.job (jobname text primary key, schedule text not null, command text not null);
create function cron.schedule(job_name text, schedule text, command text) returns bigint language sql as $$
  insert into cron.job values (job_name, schedule, command)
  on conflict (jobname) do update set schedule = excluded.schedule, command = excluded.command;
  select 1::bigint $$;
create schema net;
create table net.requests (id bigserial primary key, url text, body jsonb, headers jsonb, timeout_milliseconds int);
create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
  headers jsonb default '{"Content-Type": "application/json"}', timeout_milliseconds int default 5000)
returns bigint language sql as $$
  insert into net.requests (url, body, headers, timeout_milliseconds) values (url, body, headers, timeout_milliseconds)
  returning id $$;
create schema vault;
create table vault.decrypted_secrets (name text primary key, decrypted_secret text);
`;

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("a drain run's budget plus one request's time-out and its closing calls fit the schedule's pg_net time-out, whatever the configuration allows", async () => {
    const [{ command }] = await db.query<{ command: string }>(
      "select public.outbox_drain_job_command() as command",
    );
    const scheduled = Number(/timeout_milliseconds := (\d+)/.exec(command)?.[1]);
    assert.equal(scheduled, DRAIN_SCHEDULE_TIMEOUT_MS, "config.ts names the schedule's time-out");
    const env = {
      SUPABASE_URL: "http://127.0.0.1:54321",
      SUPABASE_SERVICE_ROLE_KEY: "service-role-key",
      SUPABASE_ANON_KEY: "anon-key",
      ORDER_TRACKING_SECRET: "a-tracking-secret-of-32-characters-or-more",
    };
    // the defaults: 40 s of work, then at most one request's 10 s, then the closing calls
    const defaults = parseConfig(env);
    assert.deepEqual([defaults.outboxDrainBudgetMs, defaults.emailSendTimeoutMs], [40_000, 10_000]);
    assert.ok(defaults.outboxDrainBudgetMs + defaults.emailSendTimeoutMs + DRAIN_CLOSING_MS <= scheduled);
    // the most the configuration takes fits too, and one millisecond more is refused at start
    assert.ok(MAX_DRAIN_RUN_MS + DRAIN_CLOSING_MS <= scheduled);
    const most = parseConfig({ ...env, OUTBOX_DRAIN_BUDGET_MS: "45000", EMAIL_SEND_TIMEOUT_MS: "5000" });
    assert.equal(most.outboxDrainBudgetMs + most.emailSendTimeoutMs, MAX_DRAIN_RUN_MS);
    assert.throws(
      () => parseConfig({ ...env, OUTBOX_DRAIN_BUDGET_MS: "45001", EMAIL_SEND_TIMEOUT_MS: "5000" }),
      /^ConfigError: OUTBOX_DRAIN_BUDGET_MS \+ EMAIL_SEND_TIMEOUT_MS must be at most 50000/,
    );
  });

  test("the outbox-drain cron migration schedules nothing where pg_cron and pg_net are missing", async () => {
    const [row] = await db.query<{ cron: string | null; net: string | null; result: string }>(
      `select to_regnamespace('cron')::text as cron, to_regnamespace('net')::text as net,
         public.schedule_outbox_drain() as result`,
    );
    assert.deepEqual(row, {
      cron: null,
      net: null,
      result: "not scheduled: pg_cron, pg_net or Vault is not installed",
    });
  });

  test("schedule_outbox_drain() schedules every minute a job that posts to outbox-drain with the key from Vault", async () => {
    const stack = await startTestStack({
      db,
      env: { SUPABASE_SECRET_KEYS: '{"default":"sb_secret_cron_test"}' },
    });
    await db.exec(STAND_INS);
    try {
      const [{ result }] = await db.query<{ result: string }>(
        "select public.schedule_outbox_drain() as result",
      );
      assert.equal(result, "scheduled: outbox-drain every minute");
      const jobs = await db.query<{ jobname: string; schedule: string; command: string }>(
        "select jobname, schedule, command from cron.job",
      );
      assert.deepEqual(jobs.map((job) => [job.jobname, job.schedule]), [["outbox-drain", "* * * * *"]]);
      const [{ command }] = await db.query<{ command: string }>(
        "select public.outbox_drain_job_command() as command",
      );
      assert.equal(jobs[0].command, command);

      // without the Vault secrets the job sends nothing
      await db.exec(command);
      assert.deepEqual(await db.query("select * from net.requests"), []);

      await db.query(
        `insert into vault.decrypted_secrets values ('project_url', $1), ('outbox_drain_key', 'sb_secret_cron_test')`,
        [`${stack.url}/`],
      );
      await db.exec(command);
      const requests = await db.query<
        { url: string; body: unknown; headers: Record<string, string>; timeout_milliseconds: number }
      >("select url, body, headers, timeout_milliseconds from net.requests");
      assert.equal(requests.length, 1);
      const [request] = requests;
      assert.equal(request.url, `${stack.url}/functions/v1/outbox-drain`);
      assert.deepEqual(request.body, {});
      assert.deepEqual(request.headers, {
        "Content-Type": "application/json",
        apikey: "sb_secret_cron_test",
        Authorization: "Bearer sb_secret_cron_test",
      });
      assert.ok(request.timeout_milliseconds > 5000 && request.timeout_milliseconds < 60_000);

      // the request as pg_net would send it: the function accepts it and drains
      const res = await fetch(request.url, {
        method: "POST",
        headers: request.headers,
        body: JSON.stringify(request.body),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(await res.json()), [
        "unpaidOrders",
        "emails",
        "deadEmails",
        "refunds",
        "failedRefunds",
        "purged",
      ]);
    } finally {
      await db.exec("drop schema cron cascade; drop schema net cascade; drop schema vault cascade;");
      await stack.close();
    }
  });
}
