/**
 * Wires the handler's parts from the environment: configuration, the supabase-js database port, the user
 * JWT verifier (supabase-js auth.getClaims against the project's key set), and an
 * e-mail sender that loads the mailer (and the Resend SDK) only when an order first needs it, so a cold
 * start pays for neither.
 */
import { supabaseUserTokenVerifier } from "../_shared/auth/supabase_user_token_verifier.ts";
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import type { EmailOutbox } from "../_shared/email/email_outbox.ts";
import type { Mailer } from "../_shared/email/mailer.ts";
import type { OutboxEmail } from "../_shared/email/order_email.ts";
import { supabaseOrderStore } from "../_shared/orders/supabase_order_store.ts";
import type { CreateOrderDependencies } from "./handler.ts";

declare const EdgeRuntime: { waitUntil(work: Promise<unknown>): void } | undefined;

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

function _defaultWaitUntil(work: Promise<unknown>): void {
  if (typeof EdgeRuntime !== "undefined") EdgeRuntime.waitUntil(work);
  // elsewhere (deno task dev) the process outlives the response anyway
}

/** Reads the environment once and builds everything the handler needs. */
export function loadDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: DependencyOverrides = {},
): CreateOrderDependencies {
  const config = parseConfig(env);
  const log = overrides.log ?? jsonLogger();
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);

  let mailer: Promise<Mailer> | undefined;
  const loadMailer = (): Promise<Mailer> =>
    mailer ??= overrides.mailer?.() ??
      import("../_shared/email/resend_mailer.ts").then(({ createResendMailer }) => {
        if (!config.resend) throw new Error("RESEND_API_KEY is not set and no other mailer was configured");
        return createResendMailer(config.resend);
      });

  // one outbox for the process: its results of concurrent orders share database calls
  let outbox: Promise<EmailOutbox> | undefined;
  const loadOutbox = (): Promise<EmailOutbox> =>
    outbox ??= Promise.all([
      import("../_shared/email/supabase_email_outbox.ts"),
      import("../_shared/email/coalesced_email_outbox.ts"),
    ]).then(([{ supabaseEmailOutbox }, { coalescedEmailOutbox }]) =>
      coalescedEmailOutbox(supabaseEmailOutbox(client, config.databaseTimeoutMs))
    );

  const sendOrderEmails = async (emails: OutboxEmail[]): Promise<void> => {
    const { sendOrderEmails: send } = await import("../_shared/email/outbox_sender.ts");
    await send(emails, {
      mailer: await loadMailer(),
      outbox: await loadOutbox(),
      render: {
        from: config.emailFrom,
        trackingUrlTemplate: config.trackingUrlTemplate,
        trackingSecret: config.trackingSecret,
      },
      sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
      log,
    });
  };

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
    waitUntil: overrides.waitUntil ?? _defaultWaitUntil,
    log,
  };
}
