/**
 * Wires the handler's parts from the environment: configuration, the supabase-js database port, the user
 * JWT verifier (supabase-js auth.getClaims against the project's key set), and an
 * e-mail sender that loads the mailer (and the Resend SDK) only when an order first needs it, so a cold
 * start pays for neither.
 */
import { supabaseUserTokenVerifier } from "../_shared/auth/supabase_user_token_verifier.ts";
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { claimedEmailSender } from "../_shared/email/email_delivery.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { defaultWaitUntil } from "../_shared/http/wait_until.ts";
import type { Mailer } from "../_shared/email/mailer.ts";
import { supabaseOrderStore } from "../_shared/orders/supabase_order_store.ts";
import type { CreateOrderDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface DependencyOverrides {
  /** Builds the mailer on first use; default: Resend when RESEND_API_KEY is set. */
  mailer?: () => Promise<Mailer>;
  clock?: () => Date;
  log?: Logger;
  waitUntil?: (work: Promise<unknown>) => void;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
  /** How long verifying a user's JWT may take (default USER_TOKEN_TIMEOUT_MS). */
  userTokenTimeoutMs?: number;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: DependencyOverrides = {},
): CreateOrderDependencies {
  const config = parseConfig(env);
  const log = overrides.log ?? jsonLogger();
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);

  // one sender for the process: its outbox's results of concurrent orders share database calls
  const sendOrderEmails = claimedEmailSender(config, client, { mailer: overrides.mailer, log });

  const clock = overrides.clock ?? (() => new Date());
  return {
    config,
    clock,
    orders: supabaseOrderStore(client, clock),
    verifyUserToken: supabaseUserTokenVerifier(config.supabaseUrl, config.serviceKey, {
      fetch: overrides.fetch,
      timeoutMs: overrides.userTokenTimeoutMs,
    }),
    sendOrderEmails,
    waitUntil: overrides.waitUntil ?? defaultWaitUntil,
    log,
  };
}
