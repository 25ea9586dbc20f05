/**
 * POST /outbox-drain: one run of the outbox drain (cancel the orders nobody paid in time, issue refunds, purge
 * expired guards, send what is due within the run's budget, then report dead rows), for pg_cron every minute.
 * Service and secret keys only: the shared frame answers 401 to any other key, and does the method, limits,
 * errors and the log line.
 */
import type { Config } from "../_shared/config.ts";
import { type OutboxDrainDeps, runOutboxDrain } from "../_shared/email/outbox_drain.ts";
import type { Logger } from "../_shared/http/log.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import { parseDrainRequest } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own mailer and outbox through `loadDrain`. */
export interface OutboxDrainDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins">;
  /** The drain's parts, mailer included; rejects when no mailer is configured, before any row is claimed. */
  loadDrain: () => Promise<OutboxDrainDeps>;
  log: Logger;
  newRequestId?: () => string;
}

/** Builds the outbox-drain handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function outboxDrainHandler(deps: OutboxDrainDependencies) {
  return serveFunction({
    name: "outbox_drain",
    methods: ["POST"],
    access: "service",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _drain(context, deps),
  });
}

async function _drain(context: RequestContext, deps: OutboxDrainDependencies): Promise<JsonReply> {
  const options = parseDrainRequest(await context.readBody());
  const report = await runOutboxDrain(await deps.loadDrain(), options);
  const { claimed, sent, failed, dead, ignored, superseded, released } = report.emails;
  context.annotate({
    unpaidCancelled: report.unpaidOrders?.cancelled ?? null,
    unpaidSkipped: report.unpaidOrders?.skipped ?? null,
    claimed,
    sent,
    failed,
    dead,
    ignored,
    superseded,
    released,
    deadTotal: report.deadEmails.total,
    refundsIssued: report.refunds?.issued ?? null,
    refundsAdopted: report.refunds?.adopted ?? null,
    refundsFailed: report.refunds?.failed ?? null,
    refundsReleased: report.refunds?.released ?? null,
    failedRefundsListed: report.failedRefunds.length,
  });
  return { status: 200, body: report };
}
