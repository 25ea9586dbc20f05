/**
 * The backlog after an outage (issue 17): thousands of e-mails the request path could not send, drained by
 * the outbox drain's runs (`runOutboxDrain`, the code the outbox-drain function runs) through supabase-js
 * and the PostgREST stand-in into a bench database on PostgreSQL, the real Resend SDK against the fake
 * Resend enforcing Resend's default limit (2 requests a second, 429 with `retry-after` past it). Runs follow
 * each other at once; the figures also give the time as pg_cron would space them (a run a minute).
 * Figures per case: runs, the drain's time, requests, 429s, e-mails delivered, duplicates (must be 0), rows
 * left unsent.
 *
 *   deno run --allow-all bench/backlog_drain.ts [--emails=2000] [--in-doubt=200]
 *
 * Cases: `--emails` e-mails refused for sure while the provider was out (a 429 storm, a quota, a revoked key:
 * no request delivered them, so they go in batches) at the drain's configured pace (2/s) and misconfigured
 * at 10/s; `--in-doubt` e-mails whose requests' answers were lost (a time-out, a 5xx: each goes alone under
 * its own key). DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { startFakeResend } from "../local/fake_resend.ts";
import { openPostgres } from "../local/open_database.ts";
import { createRpcRoute } from "../local/postgrest_rpc.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createDatabaseClient } from "../supabase/functions/_shared/database_client.ts";
import { runOutboxDrain } from "../supabase/functions/_shared/email/outbox_drain.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { supabaseEmailOutbox } from "../supabase/functions/_shared/email/supabase_email_outbox.ts";
import { createBenchDatabase } from "./bench_database.ts";
import { orderPayload, STORES } from "./catalogue.ts";

/** One case's figures. */
export interface BacklogFigures {
  case: string;
  emails: number;
  /** The drain's pace (RESEND_REQUESTS_PER_SECOND) against the fake's limit of 2 a second. */
  paceRequestsPerSecond: number;
  /** Runs that claimed something. */
  runs: number;
  /** The runs' time end to end, back to back (waiting when nothing was due yet). */
  drainSeconds: number;
  /** The same runs a minute apart, as pg_cron starts them: from the first run's start to the last's end. */
  cronSeconds: number;
  requests: number;
  batchRequests: number;
  rateLimited: number;
  delivered: number;
  duplicates: number;
  /** Rows not sent when the runs stopped. */
  left: number;
}

/** The run's limits, as the configuration's defaults give them. */
const LIMITS = { budgetMs: 40_000, sendTimeoutMs: 10_000 };
const SERVICE_KEY = "bench-backlog-service-key";
const render = {
  from: "Shop <orders@shop.example>",
  trackingUrlTemplate: "https://shop.example/track?order={orderId}&token={token}",
  trackingSecret: "bench-tracking-secret-of-at-least-32-chars",
};

/** Drains one backlog of `emails` e-mails in a fresh bench database; drops it after. */
export async function drainBacklog(
  serverUrl: string,
  options: { label: string; emails: number; maybeDelivered: boolean; pace: number },
  log: (line: string) => void,
): Promise<BacklogFigures> {
  const bench = await createBenchDatabase(serverUrl);
  const db = openPostgres(bench.url, 4);
  const rpc = createRpcRoute(db, { anon: [], serviceRole: [SERVICE_KEY] });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    const match = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(new URL(request.url).pathname);
    return match ? rpc(request, match[1]) : new Response("no route", { status: 404 });
  });
  const fake = startFakeResend({ rateLimit: { perSecond: 2 } });
  try {
    await _backlog(db, options.emails / 2, options.maybeDelivered);
    log(`${options.label}: ${options.emails} e-mails due`);
    const deps = {
      mailer: createResendMailer({ apiKey: "re_bench", baseUrl: fake.url, timeoutMs: LIMITS.sendTimeoutMs }),
      outbox: supabaseEmailOutbox(createDatabaseClient(`http://127.0.0.1:${server.addr.port}`, SERVICE_KEY)),
      render,
      log: () => {},
      limits: { ...LIMITS, requestsPerSecond: options.pace },
      cancelUnpaidOrders: () => Promise.resolve({ cancelled: [], emails: [], skipped: [] }),
      purgeExpiredGuards: () => Promise.resolve({ idempotencyKeys: 0, rateLimitWindows: 0 }),
    };
    const started = performance.now();
    let runs = 0;
    let lastRunMs = 0;
    while (performance.now() - started < 3_600_000 && (await _unsent(db)) > 0) {
      const runStarted = performance.now();
      const { emails } = await runOutboxDrain(deps);
      if (emails.claimed === 0) {
        // nothing due yet (rows waiting out their back-off): cron's next run would find them, so wait
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      lastRunMs = performance.now() - runStarted;
      runs++;
      if (runs % 5 === 0) log(`${options.label}: ${runs} runs, ${await _unsent(db)} left`);
    }
    const drainSeconds = (performance.now() - started) / 1000;
    const seen = new Map<string, number>();
    for (const d of fake.delivered) {
      seen.set(`${d.to} ${d.subject}`, (seen.get(`${d.to} ${d.subject}`) ?? 0) + 1);
    }
    const figures: BacklogFigures = {
      case: options.label,
      emails: options.emails,
      paceRequestsPerSecond: options.pace,
      runs,
      drainSeconds: Math.round(drainSeconds * 10) / 10,
      cronSeconds: Math.round(((runs - 1) * 60 + lastRunMs / 1000) * 10) / 10,
      requests: fake.stats.requests,
      batchRequests: fake.requests.filter((r) => r.path === "/emails/batch").length,
      rateLimited: fake.stats.rateLimited,
      delivered: fake.delivered.length,
      duplicates: [...seen.values()].reduce((n, count) => n + count - 1, 0),
      left: await _unsent(db),
    };
    log(`${options.label}: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await fake.close();
    await server.shutdown();
    await db.close();
    await bench.drop();
  }
}

/**
 * `orders` orders (two e-mails each) across the bench's stores, their e-mails failed an hour ago on the
 * request path: refused for sure, or with their answers lost (`maybeDelivered`).
 */
async function _backlog(db: SqlDatabase, orders: number, maybeDelivered: boolean): Promise<void> {
  for (let n = 0; n < orders; n++) {
    const payload = orderPayload(n % STORES, n);
    await db.query("select public.create_order($1::jsonb)", [{
      ...payload,
      buyer: { ...payload.buyer, email: `backlog-${n}@example.com` },
      orderedAt: new Date().toISOString(),
    }]);
  }
  await db.query(
    `update public.email_outbox set status = 'failed', failures = 1, attempts = 3, claim_token = null,
       claim_expires_at = null, claimed_at = now() - interval '1 hour', delivery_unknown = $1,
       last_error = case when $1 then 'resend network application_error' else 'resend 429 rate_limit_exceeded' end`,
    [maybeDelivered],
  );
}

async function _unsent(db: SqlDatabase): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(
    "select count(*)::integer as n from public.email_outbox where status in ('pending', 'sending', 'failed')",
  );
  return n;
}

/** The cases of `deno task bench` (the in-doubt backlog smaller: it drains alone, 2 a second). */
export async function runBacklogPhase(
  serverUrl: string,
  sizes: { emails: number; inDoubt: number },
  log: (line: string) => void,
): Promise<BacklogFigures[]> {
  const figures: BacklogFigures[] = [];
  if (sizes.emails > 0) {
    for (const pace of [2, 10]) {
      figures.push(
        await drainBacklog(serverUrl, {
          label: `refused, at ${pace}/s`,
          emails: sizes.emails,
          maybeDelivered: false,
          pace,
        }, log),
      );
    }
  }
  if (sizes.inDoubt > 0) {
    figures.push(
      await drainBacklog(serverUrl, {
        label: "in doubt, at 2/s",
        emails: sizes.inDoubt,
        maybeDelivered: true,
        pace: 2,
      }, log),
    );
  }
  return figures;
}

if (import.meta.main) {
  const flag = (name: string, fallback: number) => {
    const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
    return arg ? Number(arg.slice(name.length + 3)) : fallback;
  };
  const serverUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const log = (line: string) => console.error(`[backlog ${new Date().toISOString().slice(11, 19)}] ${line}`);
  const figures = await runBacklogPhase(serverUrl, {
    emails: flag("emails", 2000),
    inDoubt: flag("in-doubt", 200),
  }, log);
  console.log(JSON.stringify(figures, null, 2));
}
