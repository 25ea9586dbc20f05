/** Starting the local stack in-process for end-to-end tests, and calling it as a storefront would. */
import { type LocalStack, type LocalStackOptions, startLocalStack } from "../../local/stack.ts";
import type { Mailer, SendResult } from "../../supabase/functions/_shared/email/mailer.ts";

/** A mailer that records every message and answers success: for tests about orders, not e-mail. */
export function recordingMailer(): Mailer & {
  sent: { idempotencyKey: string; to: string; subject: string }[];
} {
  const sent: { idempotencyKey: string; to: string; subject: string }[] = [];
  return {
    sent,
    send(message, idempotencyKey): Promise<SendResult> {
      sent.push({ idempotencyKey, to: message.to, subject: message.subject });
      return Promise.resolve({ ok: true, providerId: `recorded-${sent.length}` });
    },
  };
}

/** A test stack with a recording mailer and silent logs unless given. */
export async function startTestStack(
  options: LocalStackOptions & { recorder?: ReturnType<typeof recordingMailer> },
): Promise<
  LocalStack & {
    mail: ReturnType<typeof recordingMailer>;
    post: (body: unknown, headers?: HeadersInit) => Promise<Response>;
  }
> {
  const mail = options.recorder ?? recordingMailer();
  const stack = await startLocalStack({ log: () => {}, mailer: () => Promise.resolve(mail), ...options });
  return Object.assign(stack, {
    mail,
    post(body: unknown, headers: HeadersInit = {}) {
      return fetch(`${stack.url}/functions/v1/create-order`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stack.anonKey}`, "Content-Type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
  });
}
