/**
 * Wires the drain's parts from the environment: configuration, supabase-js, the outbox, refunds and purge
 * adapters, the payment gateway refunds are issued through (Razorpay when its keys are set), and the mailer
 * (Resend when RESEND_API_KEY is set), loaded on the first request.
 */
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import type { Mailer } from "../_shared/email/mailer.ts";
import { drainLimits, type OutboxDrainDeps } from "../_shared/email/outbox_drain.ts";
import { supabaseEmailOutbox } from "../_shared/email/supabase_email_outbox.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { supabasePurgeExpiredGuards } from "../_shared/orders/order_guards.ts";
import { supabaseCancelUnpaidOrders } from "../_shared/orders/unpaid_orders.ts";
import { configuredProvider } from "../_shared/payments/configured_provider.ts";
import { supabaseRefunds } from "../_shared/payments/supabase_refunds.ts";
import { internalError } from "../_shared/errors.ts";
import type { OutboxDrainDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface DrainOverrides {
  /** Builds the mailer on first use; default: Resend when RESEND_API_KEY is set, else every run is a 500. */
  mailer?: () => Promise<Mailer>;
  log?: Logger;
  sleep?: (ms: number) => Promise<void>;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
  /** The fetch the payment gateway's adapter uses. */
  providerFetch?: typeof fetch;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadDrainDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: DrainOverrides = {},
): OutboxDrainDependencies {
  const config = parseConfig(env);
  const log = overrides.log ?? jsonLogger();
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);

  let mailer: Promise<Mailer> | undefined;
  const loadMailer = (): Promise<Mailer> =>
    mailer ??= overrides.mailer?.() ??
      import("../_shared/email/resend_mailer.ts").then(({ createResendMailer }) => {
        if (!config.resend) {
          // no row is claimed: they stay as they are until a mailer is configured
          throw internalError(new Error("RESEND_API_KEY is not set and no other mailer was configured"));
        }
        return createResendMailer({ ...config.resend, timeoutMs: config.emailSendTimeoutMs });
      });

  const outbox = supabaseEmailOutbox(client, config.databaseTimeoutMs);
  const purgeExpiredGuards = supabasePurgeExpiredGuards(client, config.databaseTimeoutMs);
  const cancelUnpaidOrders = supabaseCancelUnpaidOrders(
    client,
    config.unpaidOrders,
    config.databaseTimeoutMs,
  );
  const refunds = {
    store: supabaseRefunds(client, { timeoutMs: config.databaseTimeoutMs }),
    provider: configuredProvider(config, overrides.providerFetch),
  };
  return {
    config,
    log,
    async loadDrain(): Promise<OutboxDrainDeps> {
      return {
        mailer: await loadMailer(),
        outbox,
        cancelUnpaidOrders,
        purgeExpiredGuards,
        refunds,
        render: {
          from: config.emailFrom,
          trackingUrlTemplate: config.trackingUrlTemplate,
          trackingSecret: config.trackingSecret,
        },
        log,
        limits: drainLimits(config, overrides.mailer === undefined),
        ...(overrides.sleep ? { sleep: overrides.sleep } : {}),
      };
    },
  };
}
