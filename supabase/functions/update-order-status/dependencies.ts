/**
 * Wires the handler's parts from the environment: configuration, the supabase-js status-move port, and
 * the e-mail sender, which loads the mailer (and the Resend SDK) only when a move first needs it.
 */
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { claimedEmailSender } from "../_shared/email/email_delivery.ts";
import type { Mailer } from "../_shared/email/mailer.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { defaultWaitUntil } from "../_shared/http/wait_until.ts";
import { supabaseStatusMoveStore } from "../_shared/orders/supabase_status_move_store.ts";
import type { UpdateOrderStatusDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface StatusOverrides {
  /** Builds the mailer on first use; default: Resend when RESEND_API_KEY is set. */
  mailer?: () => Promise<Mailer>;
  clock?: () => Date;
  log?: Logger;
  waitUntil?: (work: Promise<unknown>) => void;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadStatusDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: StatusOverrides = {},
): UpdateOrderStatusDependencies {
  const config = parseConfig(env);
  const log = overrides.log ?? jsonLogger();
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);
  const clock = overrides.clock ?? (() => new Date());
  return {
    config,
    clock,
    moves: supabaseStatusMoveStore(client, clock),
    sendEmails: claimedEmailSender(config, client, { mailer: overrides.mailer, log }),
    waitUntil: overrides.waitUntil ?? defaultWaitUntil,
    log,
  };
}
