/**
 * The fake Razorpay's webhooks, sent as Razorpay sends them: a POST of the event's JSON to the configured
 * URL, `X-Razorpay-Signature` the hex HMAC-SHA256 of those exact bytes with the webhook secret, and
 * `x-razorpay-event-id` naming the event. Only the events the account subscribed to go out. Deliveries can
 * be held (a test that wants verify-payment to come first) and released in the order they were made.
 */
import { hmacSha256Hex } from "../../supabase/functions/_shared/payments/webhook_signature.ts";
import { newId, unixNow } from "./entities.ts";

/** The events a store subscribes to (docs/deploy.md, "Razorpay: test mode, then live"): what the fake sends unless told otherwise. */
export const SUBSCRIBED_EVENTS = ["payment.captured", "order.paid", "refund.processed", "refund.failed"];

/** One delivery: the event, its id, and the status the webhook answered (0: no answer, null: held). */
export interface WebhookDelivery {
  event: string;
  eventId: string;
  body: string;
  status: number | null;
}

/** Sends (or holds) signed events; `settled()` resolves when every send started so far has finished. */
export class WebhookSender {
  readonly deliveries: WebhookDelivery[] = [];
  url: string | null;
  held = false;
  readonly #secret: string;
  readonly #events: ReadonlySet<string>;
  readonly #pending = new Set<Promise<void>>();
  #queue: WebhookDelivery[] = [];

  constructor(options: { secret: string; url: string | null; events?: readonly string[] }) {
    this.#secret = options.secret;
    this.url = options.url;
    this.#events = new Set(options.events ?? SUBSCRIBED_EVENTS);
  }

  /** Makes the event `name` with `payload` and sends it, unless the account did not subscribe to it. */
  emit(name: string, payload: Record<string, { entity: unknown }>): void {
    if (!this.#events.has(name)) return;
    const body = JSON.stringify({
      entity: "event",
      account_id: "acc_LocalFake0000001",
      event: name,
      contains: Object.keys(payload),
      payload,
      created_at: unixNow(),
    });
    const delivery: WebhookDelivery = { event: name, eventId: newId("evt"), body, status: null };
    this.deliveries.push(delivery);
    if (this.held) this.#queue.push(delivery);
    else this.#send(delivery);
  }

  /** Sends every held event, in the order they were made, one after another; resolves once all answered. */
  async release(): Promise<void> {
    this.held = false;
    const queue = this.#queue;
    this.#queue = [];
    for (const delivery of queue) await this.#deliver(delivery);
  }

  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  #send(delivery: WebhookDelivery): void {
    const sending = this.#deliver(delivery);
    this.#pending.add(sending);
    sending.finally(() => this.#pending.delete(sending));
  }

  async #deliver(delivery: WebhookDelivery): Promise<void> {
    if (!this.url) {
      delivery.status = 0;
      return;
    }
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Razorpay-Signature": await hmacSha256Hex(this.#secret, new TextEncoder().encode(delivery.body)),
          "x-razorpay-event-id": delivery.eventId,
        },
        body: delivery.body,
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = response.status;
      await response.body?.cancel();
    } catch {
      delivery.status = 0;
    }
  }
}
