/** Starting the local stack in-process for end-to-end tests, and calling it as a storefront would. */
import { type LocalStack, type LocalStackOptions, startLocalStack } from "../../local/stack.ts";
import type { Mailer, SendResult } from "../../supabase/functions/_shared/email/mailer.ts";
import { responseMismatch } from "./openapi_check.ts";

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

/**
 * A test stack with a recording mailer and silent logs unless given. Every function's answer is checked
 * against openapi.json: `close()` throws when one did not match what the document says.
 */
export async function startTestStack(
  options: LocalStackOptions & { recorder?: ReturnType<typeof recordingMailer> },
): Promise<
  LocalStack & {
    mail: ReturnType<typeof recordingMailer>;
    post: (body: unknown, headers?: HeadersInit) => Promise<Response>;
  }
> {
  const mail = options.recorder ?? recordingMailer();
  const checks: Promise<string | null>[] = [];
  const stack = await startLocalStack({
    log: () => {},
    mailer: () => Promise.resolve(mail),
    ...options,
    observeFunctionResponse(path, method, response) {
      // 499 is only logged: its client is gone, nobody reads it
      if (response.status !== 499) checks.push(responseMismatch(path, method, response));
      options.observeFunctionResponse?.(path, method, response);
    },
  });
  const closeStack = stack.close.bind(stack);
  return Object.assign(stack, {
    mail,
    async close() {
      await closeStack();
      const mismatches = (await Promise.all(checks)).filter((problem) => problem !== null);
      if (mismatches.length > 0) {
        throw new Error(`answers that openapi.json does not describe:\n${mismatches.join("\n")}`);
      }
    },
    post(body: unknown, headers: HeadersInit = {}) {
      return fetch(`${stack.url}/functions/v1/create-order`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stack.anonKey}`, "Content-Type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
  });
}
