/**
 * Wires the handler's parts from the environment: configuration (Razorpay's keys among it), the supabase-js
 * payment orders and ledger, Razorpay's API (none without keys: the handler then answers 503), and the
 * e-mail sender, which loads the mailer only when a payment first needs it.
 */
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { claimedEmailSender } from "../_shared/email/email_delivery.ts";
import type { Mailer } from "../_shared/email/mailer.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { defaultWaitUntil } from "../_shared/http/wait_until.ts";
import { configuredProvider } from "../_shared/payments/configured_provider.ts";
import { supabasePaymentLedger } from "../_shared/payments/supabase_payment_ledger.ts";
import { supabasePaymentOrders } from "../_shared/payments/supabase_payment_orders.ts";
import type { VerifyPaymentDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface VerifyPaymentOverrides {
  /** Builds the mailer on first use; default: Resend when RESEND_API_KEY is set. */
  mailer?: () => Promise<Mailer>;
  clock?: () => Date;
  log?: Logger;
  waitUntil?: (work: Promise<unknown>) => void;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadVerifyPaymentDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: VerifyPaymentOverrides = {},
): VerifyPaymentDependencies {
  const config = parseConfig(env);
  const log = overrides.log ?? jsonLogger();
  const clock = overrides.clock ?? (() => new Date());
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);
  return {
    config,
    clock,
    payments: supabasePaymentOrders(client, clock),
    ledger: supabasePaymentLedger(client, clock),
    provider: configuredProvider(config),
    sendEmails: claimedEmailSender(config, client, { mailer: overrides.mailer, log }),
    waitUntil: overrides.waitUntil ?? defaultWaitUntil,
    log,
  };
}
