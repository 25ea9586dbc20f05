/**
 * A Mailer for local development without RESEND_API_KEY: each message becomes two files under
 * `.local/outbox/`, `<time>-<orderId>-<kind>.html` to open in a browser and `.eml` (headers and the text
 * part) to read, and one log line. Like Resend, a repeated idempotency key writes nothing new.
 */
import type { EmailMessage, Mailer, SendResult } from "../supabase/functions/_shared/email/mailer.ts";

/** Options of {@linkcode createFileMailer}. */
export interface FileMailerOptions {
  /** Where the files go (default `.local/outbox`). */
  dir?: string;
  log?: (event: Record<string, unknown>) => void;
  clock?: () => Date;
}

/** A Mailer that writes files; its provider id is the file name without extension. */
export function createFileMailer(options: FileMailerOptions = {}): Mailer {
  const dir = options.dir ?? ".local/outbox";
  const log = options.log ?? ((event) => console.log(JSON.stringify(event)));
  const clock = options.clock ?? (() => new Date());
  const written = new Map<string, string>();

  async function send(message: EmailMessage, idempotencyKey: string): Promise<SendResult> {
    const known = written.get(idempotencyKey);
    if (known) return { ok: true, providerId: known };
    try {
      const name = `${clock().toISOString().replace(/[:.]/g, "-")}-${_slug(idempotencyKey)}`;
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/${name}.html`, message.html);
      await Deno.writeTextFile(`${dir}/${name}.eml`, emlText(message));
      written.set(idempotencyKey, name);
      log({ event: "email.written", file: `${dir}/${name}.html` });
      return { ok: true, providerId: name };
    } catch (error) {
      return { ok: false, error: `file mailer: ${(error as Error).message}`, retryable: true };
    }
  }

  return { send };
}

/** The message as RFC 822-style text: From, To, Reply-To and Subject headers, a blank line, the text part. */
export function emlText(message: EmailMessage): string {
  const headers = [
    `From: ${message.from}`,
    `To: ${message.to}`,
    ...(message.replyTo ? [`Reply-To: ${message.replyTo}`] : []),
    `Subject: ${message.subject}`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
  ].map((line) => line.replace(/[\r\n]+/g, " "));
  return `${headers.join("\r\n")}\r\n\r\n${message.text.replace(/\r?\n/g, "\r\n")}`;
}

/** `order/<orderId>/<kind>` as a file-name part: `<orderId>-<kind>`. */
function _slug(idempotencyKey: string): string {
  return idempotencyKey.replace(/^order\//, "").replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 120);
}
