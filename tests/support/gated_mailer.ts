/**
 * A mailer whose sends wait until the test releases them, in the order they arrived: a sender that stalls
 * mid-send, at the moment a test chooses.
 */
import type { Mailer, SendResult } from "../../supabase/functions/_shared/email/mailer.ts";

/** The mailer and its controls. */
export interface GatedMailer extends Mailer {
  /** The idempotency keys of every send, in arrival order. */
  keys: string[];
  /** Resolves once `count` sends in all have arrived. */
  arrived(count: number): Promise<void>;
  /** Answers the `count` oldest waiting sends with `result`. */
  release(count: number, result: SendResult): void;
  /** From now on every send, waiting or new, succeeds at once with a fresh provider id. */
  openAll(): void;
}

/** Starts with every send held. */
export function gatedMailer(): GatedMailer {
  const keys: string[] = [];
  const waiting: ((result: SendResult) => void)[] = [];
  const watchers: { count: number; resolve: () => void }[] = [];
  let open = false;
  const success = (): SendResult => ({ ok: true, providerId: `provider-${crypto.randomUUID()}` });

  const send = (idempotencyKey: string): Promise<SendResult> => {
    keys.push(idempotencyKey);
    for (const watcher of watchers.filter((w) => keys.length >= w.count)) watcher.resolve();
    if (open) return Promise.resolve(success());
    return new Promise((resolve) => waiting.push(resolve));
  };
  return {
    keys,
    send: (_message, idempotencyKey) => send(idempotencyKey),
    arrived: (count) =>
      keys.length >= count ? Promise.resolve() : new Promise((resolve) => watchers.push({ count, resolve })),
    release(count, result) {
      for (const resolve of waiting.splice(0, count)) resolve(result);
    },
    openAll() {
      open = true;
      for (const resolve of waiting.splice(0)) resolve(success());
    },
  };
}
