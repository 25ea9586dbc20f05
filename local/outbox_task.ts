/**
 * `deno task outbox`: one run of the outbox drain (`runOutboxDrain`, the same code the outbox-drain function
 * runs on Supabase): cancels the orders nobody paid in time (UNPAID_GATEWAY_ORDER_MINUTES,
 * UNPAID_UPI_DIRECT_ORDER_HOURS) and sends their buyers' cancelled e-mails; issues the refunds that are due
 * through Razorpay (the local stack's fake unless RAZORPAY_API_URL is set) and sends the buyers' refund
 * e-mails; reports failed refunds; removes idempotency keys older than 7 days and rate-limit windows older than
 * 2 days; then, within the run's budget (OUTBOX_DRAIN_BUDGET_MS), sends every e-mail the request path did not
 * (pending or failed rows at least a minute old, claims whose run ended, and claims left `sending` by a request
 * whose sender died), through Resend when RESEND_API_KEY is set (at RESEND_REQUESTS_PER_SECOND), else into
 * `.local/outbox/`; and last reports the dead rows. Safe from cron and concurrently: claims are serialized and
 * each run's claims expire with it.
 * Without SUPABASE_URL it drains the running local stack; a project elsewhere needs RESEND_API_KEY.
 *
 *   deno task outbox [--min-age=<seconds, default 60>] [--stale-after=<seconds, default 300>]
 */
import { parseConfig } from "../supabase/functions/_shared/config.ts";
import { createDatabaseClient } from "../supabase/functions/_shared/database_client.ts";
import type { Mailer } from "../supabase/functions/_shared/email/mailer.ts";
import {
  drainLimits,
  type DrainReport,
  runOutboxDrain,
} from "../supabase/functions/_shared/email/outbox_drain.ts";
import { createResendMailer } from "../supabase/functions/_shared/email/resend_mailer.ts";
import { supabaseEmailOutbox } from "../supabase/functions/_shared/email/supabase_email_outbox.ts";
import { supabasePurgeExpiredGuards } from "../supabase/functions/_shared/orders/order_guards.ts";
import { supabaseCancelUnpaidOrders } from "../supabase/functions/_shared/orders/unpaid_orders.ts";
import { configuredProvider } from "../supabase/functions/_shared/payments/configured_provider.ts";
import { supabaseRefunds } from "../supabase/functions/_shared/payments/supabase_refunds.ts";
import { createFileMailer } from "./file_mailer.ts";
import { parsePort } from "./dev_startup.ts";
import { serviceKeyRefusal } from "./service_key_check.ts";
import { DEMO_KEYS } from "./stack.ts";

/** What the task may be handed instead of its defaults (tests). */
export interface OutboxTaskIo {
  mailer?: Mailer;
  log?: (event: Record<string, unknown>) => void;
  print?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The task's environment: without SUPABASE_URL it drains the local stack (`deno task dev`, on
 * `PORT` or 54321) with the stack's demo keys, so that it runs as written beside the stack.
 */
export function outboxTaskEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (env.SUPABASE_URL) return env;
  const keys = env.SUPABASE_SERVICE_ROLE_KEY || env.SUPABASE_SECRET_KEYS
    ? {}
    : { SUPABASE_SERVICE_ROLE_KEY: DEMO_KEYS.serviceRole };
  return { ...env, SUPABASE_URL: `http://127.0.0.1:${parsePort(env.PORT, 54321, 1)}`, ...keys };
}

/** Whether `url` is this machine: only then may e-mails go to files instead of Resend. */
function _isLoopback(url: string): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
}

/** Whether anything answers HTTP at `url`, whatever it answers. */
async function _answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/**
 * The sentence for a drain whose URL has no server behind it: which URL, where it came from, the fix. The
 * local stack's address comes from PORT, so that is what it tells the reader to set.
 */
export function describeNothingAnswers(url: string, taskEnv: Record<string, string | undefined>): string {
  if (taskEnv.SUPABASE_URL) {
    return `nothing answers at ${url} (SUPABASE_URL): correct SUPABASE_URL, or start the stack it names`;
  }
  return taskEnv.PORT
    ? `nothing answers at ${url}, the local stack's address on PORT ${taskEnv.PORT}: start the stack there in ` +
      `another terminal (PORT=${taskEnv.PORT} npx -y deno@2.9.6 task dev), or set PORT to the port it serves on`
    : `nothing answers at ${url}, the local stack's address (PORT is not set, so 54321): start the stack in ` +
      "another terminal (npx -y deno@2.9.6 task dev), or set PORT to the port it serves on " +
      "(PORT=<port> npx -y deno@2.9.6 task outbox)";
}

/** Runs one drain with the configuration of `env` and the flags in `args`; prints and returns its report. */
export async function runOutboxTask(
  args: string[],
  taskEnv: Record<string, string | undefined>,
  io: OutboxTaskIo = {},
): Promise<DrainReport> {
  const flags = parseOutboxFlags(args);
  const env = outboxTaskEnv(taskEnv);
  const config = parseConfig(env);
  const log = io.log ??
    ((event) => console.error(JSON.stringify({ at: new Date().toISOString(), ...event })));
  if (!io.mailer && !config.resend && !_isLoopback(config.supabaseUrl)) {
    // files in .local/outbox/ would count as sent, and the project's buyers would never get them
    throw new Error(
      `RESEND_API_KEY is not set: draining ${new URL(config.supabaseUrl).host} would mark its e-mails sent ` +
        "as files in .local/outbox/; set RESEND_API_KEY (files are only for the local stack)",
    );
  }
  const mailer = io.mailer ??
    (config.resend
      ? createResendMailer({ ...config.resend, timeoutMs: config.emailSendTimeoutMs })
      : createFileMailer({ log }));
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey);
  // ask first: with nothing at the URL every step fails, and each would log its own failure
  if (!(await _answers(config.supabaseUrl))) {
    throw new Error(describeNothingAnswers(config.supabaseUrl, taskEnv));
  }
  const refusal = await serviceKeyRefusal(config.supabaseUrl, config.serviceKey, taskEnv);
  if (refusal) throw new Error(refusal);
  const report = await runOutboxDrain({
    mailer,
    outbox: supabaseEmailOutbox(client, config.databaseTimeoutMs),
    cancelUnpaidOrders: supabaseCancelUnpaidOrders(client, config.unpaidOrders, config.databaseTimeoutMs),
    purgeExpiredGuards: supabasePurgeExpiredGuards(client, config.databaseTimeoutMs),
    refunds: {
      store: supabaseRefunds(client, { timeoutMs: config.databaseTimeoutMs }),
      provider: configuredProvider(config),
    },
    render: {
      from: config.emailFrom,
      trackingUrlTemplate: config.trackingUrlTemplate,
      trackingSecret: config.trackingSecret,
    },
    log,
    limits: drainLimits(config, !io.mailer && config.resend !== null),
    ...(io.sleep ? { sleep: io.sleep } : {}),
  }, flags);
  for (const line of describeDrainReport(report)) (io.print ?? console.log)(line);
  return report;
}

/** The lines the task prints for a drain's report. */
export function describeDrainReport(report: DrainReport): string[] {
  const { claimed, sent, failed, dead, ignored, superseded, released } = report.emails;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return [
    report.unpaidOrders
      ? `unpaid orders: cancelled ${report.unpaidOrders.cancelled}, left for a later run ${report.unpaidOrders.skipped}`
      : "unpaid orders: failed (see the log line), the next run tries again",
    `outbox: claimed ${claimed}, sent ${sent}, failed ${failed}, dead ${dead}, ignored ${ignored}, ` +
    `superseded ${superseded}, released ${released}`,
    ...(report.deadEmails.total > 0
      ? [
        `outbox: ${count(report.deadEmails.total, "dead e-mail", "dead e-mails")}, never retried ` +
        "automatically: npx -y deno@2.9.6 task orders lists them",
      ]
      : []),
    report.refunds
      ? `refunds: issued ${report.refunds.issued} (adopted ${report.refunds.adopted}), failed ` +
        `${report.refunds.failed}, released ${report.refunds.released}`
      : "refunds: none issued (no Razorpay keys)",
    ...(report.failedRefunds.length > 0
      ? [
        `refunds: ${
          count(report.failedRefunds.length, "failed refund waits", "failed refunds wait")
        } for a person (docs/operate.md, "Refunds"): ${
          report.failedRefunds.map((r) => r.refundId).join(", ")
        }`,
      ]
      : []),
    report.purged
      ? `housekeeping: removed ${
        count(report.purged.idempotencyKeys, "idempotency key", "idempotency keys")
      }, ` +
        count(report.purged.rateLimitWindows, "rate-limit window", "rate-limit windows")
      : "housekeeping: failed (see the log line), the next run tries again",
  ];
}

/** `--min-age=<s>` and `--stale-after=<s>`, whole seconds >= 0. */
export function parseOutboxFlags(args: string[]): { minAgeSeconds: number; staleAfterSeconds: number } {
  const flags = { minAgeSeconds: 60, staleAfterSeconds: 300 };
  for (const arg of args) {
    const match = /^--(min-age|stale-after)=(.*)$/.exec(arg);
    if (!match) {
      throw new Error(`unknown argument ${arg}: use --min-age=<seconds> or --stale-after=<seconds>`);
    }
    const value = Number(match[2]);
    if (match[2] === "" || !Number.isInteger(value) || value < 0) {
      throw new Error(
        `--${match[1]} must be a whole number of seconds >= 0: got ${JSON.stringify(match[2])}`,
      );
    }
    if (match[1] === "min-age") flags.minAgeSeconds = value;
    else flags.staleAfterSeconds = value;
  }
  return flags;
}

if (import.meta.main) {
  try {
    const { emails } = await runOutboxTask(Deno.args, Deno.env.toObject());
    Deno.exit(emails.failed > 0 ? 1 : 0);
  } catch (error) {
    console.error(`outbox: ${(error as Error).message}`);
    Deno.exit(2);
  }
}
