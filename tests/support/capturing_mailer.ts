/** A mailer that keeps every message whole (subject, HTML and text), for tests that read the e-mails. */
import type { EmailMessage, Mailer, SendResult } from "../../supabase/functions/_shared/email/mailer.ts";

/** The mailer and the messages it was given, each with its idempotency key. */
export function capturingMailer(): Mailer & { messages: (EmailMessage & { idempotencyKey: string })[] } {
  const messages: (EmailMessage & { idempotencyKey: string })[] = [];
  return {
    messages,
    send(message, idempotencyKey): Promise<SendResult> {
      messages.push({ ...message, idempotencyKey });
      return Promise.resolve({ ok: true, providerId: `captured-${messages.length}` });
    },
  };
}
