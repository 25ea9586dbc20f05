/**
 * Wires the handler's parts from the environment: configuration (RAZORPAY_WEBHOOK_SECRET among it), the
 * supabase-js payment ledger and refunds, and the e-mail sender, which loads the mailer only when an event
 * first needs it.
 */
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { claimedEmailSender } from "../_shared/email/email_delivery.ts";
import type { Mailer } from "../_shared/email/mailer.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { defaultWaitUntil } from "../_shared/http/wait_until.ts";
import { supabasePaymentLedger } from "../_shared/payments/supabase_payment_ledger.ts";
import { supabaseRefunds } from "../_shared/payments/supabase_refunds.ts";
import type { PaymentWebhookDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface WebhookOverrides {
  /** Builds the mailer on first use; default: Resend when RESEND_API_KEY is set. */
  mailer?: () => Promise<Mailer>;
  clock?: () => Date;
  log?: Logger;
  waitUntil?: (work: Promise<unknown>) => void;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadWebhookDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: WebhookOverrides = {},
): PaymentWebhookDependencies {
  const config = parseConfig(env);
  const log = overrides.log ?? jsonLogger();
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);
  const clock = overrides.clock ?? (() => new Date());
  return {
    config,
    clock,
    payments: supabasePaymentLedger(client, clock),
    refunds: supabaseRefunds(client, { clock }),
    sendEmails: claimedEmailSender(config, client, { mailer: overrides.mailer, log }),
    waitUntil: overrides.waitUntil ?? defaultWaitUntil,
    log,
  };
}
