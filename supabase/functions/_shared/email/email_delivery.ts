/**
 * The request path's e-mail sender, as each function wires it: the mailer (Resend when RESEND_API_KEY is
 * set) and the outbox adapter load on the first e-mail, so a cold start pays for neither, and one outbox
 * per process lets concurrent requests' results share database calls.
 */
import type { Config } from "../config.ts";
import type { DatabaseClient } from "../database_client.ts";
import type { Logger } from "../http/log.ts";
import type { EmailOutbox } from "./email_outbox.ts";
import type { Mailer } from "./mailer.ts";
import type { OutboxEmail } from "./order_email.ts";

/** Sends claimed outbox e-mails and records their results; never throws for a send that failed. */
export type SendClaimedEmails = (emails: OutboxEmail[]) => Promise<void>;

/** Builds the sender; `mailer` replaces the default (Resend) mailer, e.g. with the local file mailer. */
export function claimedEmailSender(
  config: Pick<
    Config,
    | "resend"
    | "emailFrom"
    | "trackingUrlTemplate"
    | "trackingSecret"
    | "databaseTimeoutMs"
    | "emailSendTimeoutMs"
  >,
  client: DatabaseClient,
  options: { mailer?: () => Promise<Mailer>; log: Logger },
): SendClaimedEmails {
  let mailer: Promise<Mailer> | undefined;
  const loadMailer = (): Promise<Mailer> =>
    mailer ??= options.mailer?.() ??
      import("./resend_mailer.ts").then(({ createResendMailer }) => {
        if (!config.resend) throw new Error("RESEND_API_KEY is not set and no other mailer was configured");
        return createResendMailer({ ...config.resend, timeoutMs: config.emailSendTimeoutMs });
      });

  let outbox: Promise<EmailOutbox> | undefined;
  const loadOutbox = (): Promise<EmailOutbox> =>
    outbox ??= Promise.all([
      import("./supabase_email_outbox.ts"),
      import("./coalesced_email_outbox.ts"),
    ]).then(([{ supabaseEmailOutbox }, { coalescedEmailOutbox }]) =>
      coalescedEmailOutbox(supabaseEmailOutbox(client, config.databaseTimeoutMs))
    );

  return async (emails: OutboxEmail[]): Promise<void> => {
    const { sendOrderEmails } = await import("./outbox_sender.ts");
    await sendOrderEmails(emails, {
      mailer: await loadMailer(),
      outbox: await loadOutbox(),
      render: {
        from: config.emailFrom,
        trackingUrlTemplate: config.trackingUrlTemplate,
        trackingSecret: config.trackingSecret,
      },
      sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
      log: options.log,
      sendTimeoutMs: config.emailSendTimeoutMs,
    });
  };
}
