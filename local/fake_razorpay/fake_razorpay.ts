/**
 * A fake Razorpay on loopback, written once for the local stack and the tests: Razorpay's documented paths
 * and shapes with Basic auth (orders create and fetch; payment fetch and capture; refunds list, create and
 * fetch), a stand-in of Checkout's script at /v1/checkout.js (`new Razorpay(options).open()`, the `handler`
 * response, `on("payment.failed")`) whose modal pays, authorizes or fails the order, and the signed webhooks
 * Razorpay would send. Pointing RAZORPAY_API_URL at the real Razorpay is the only change between the two.
 * Failure switches per operation (`fail()`): an error answer, silence, or the work done and then an error.
 */
import { FAKE_METHODS, type FakeMethod } from "./entities.ts";
import { type FakeOperation, matchApiCall, razorpayError } from "./api_routes.ts";
import {
  type CheckoutAnswer,
  FakeLedger,
  type PaymentOutcome,
  RazorpayRefusal,
  readNotes,
} from "./fake_ledger.ts";
import { WebhookSender } from "./webhooks.ts";

export type { FakeOperation } from "./api_routes.ts";
export type { CheckoutAnswer, CheckoutError, PaymentOutcome } from "./fake_ledger.ts";
export type { FakeMethod } from "./entities.ts";

/** The local key id's prefix: a page loads the fake's checkout script for it, Razorpay's for any other. */
export const LOCAL_KEY_PREFIX = "rzp_local_";

/** The local stack's keys when the environment sets none. They guard nothing: the fake is local only. */
export const LOCAL_RAZORPAY_KEYS = {
  keyId: `${LOCAL_KEY_PREFIX}DevOnly0000001`,
  keySecret: "local-razorpay-key-secret-for-development-only",
} as const;

/**
 * A failure of the next call: `error` (500, nothing done), `hang` (no answer until the fake closes),
 * `act-then-fail` (the call's work is done, then 500: the caller cannot know), or a given error answer.
 */
export type FakeFailure = "error" | "hang" | "act-then-fail" | { status: number; description: string };

/** Options of {@linkcode startFakeRazorpay}. */
export interface FakeRazorpayOptions {
  keyId?: string;
  keySecret?: string;
  webhookSecret?: string;
  /** Where the signed webhooks go (payment-webhook); null: nowhere until `webhooks.url` is set. */
  webhookUrl?: string | null;
  /** The events sent (default: payment.captured, order.paid, refund.processed, refund.failed). */
  webhookEvents?: readonly string[];
  /** 0 (default) picks a free port. */
  port?: number;
  hostname?: string;
  /** A new refund becomes `processed` (refund.processed sent) this long after it is made; default never. */
  settleRefundsAfterMs?: number;
}

/** A request the fake received; `path` with its query. */
export interface SeenRazorpayRequest {
  operation: string;
  method: string;
  path: string;
  body: unknown;
}

/** A running fake: its address and keys, its books, what it was asked, and its switches. */
export interface FakeRazorpay {
  url: string;
  keyId: string;
  keySecret: string;
  webhookSecret: string;
  /** The Checkout stand-in, loaded instead of https://checkout.razorpay.com/v1/checkout.js. */
  checkoutScriptUrl: string;
  ledger: FakeLedger;
  requests: SeenRazorpayRequest[];
  webhooks: WebhookSender;
  /** Queues failures for the next calls of `operation`. */
  fail(operation: FakeOperation, ...failures: FakeFailure[]): void;
  /** What the checkout modal's buttons do, for tests without a browser. */
  pay(
    orderId: string,
    options?: { method?: FakeMethod; outcome?: PaymentOutcome; notes?: Record<string, string> },
  ): Promise<CheckoutAnswer>;
  close(): Promise<void>;
}

const _CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "content-type",
};

const _SCRIPT = await Deno.readTextFile(new URL("./checkout.js", import.meta.url));

const _SERVER_ERROR = "The server encountered an error. The incident has been reported to admins.";

/** Starts the fake on a free port of 127.0.0.1 (or the given one). */
export function startFakeRazorpay(options: FakeRazorpayOptions = {}): FakeRazorpay {
  const keyId = options.keyId ?? LOCAL_RAZORPAY_KEYS.keyId;
  const keySecret = options.keySecret ?? LOCAL_RAZORPAY_KEYS.keySecret;
  const webhookSecret = options.webhookSecret ?? "local-razorpay-webhook-secret-for-development-only";
  const requests: SeenRazorpayRequest[] = [];
  const failures = new Map<FakeOperation, FakeFailure[]>();
  const hung = new Set<() => void>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const webhooks = new WebhookSender({
    secret: webhookSecret,
    url: options.webhookUrl ?? null,
    events: options.webhookEvents,
  });
  const ledger = new FakeLedger(keySecret, webhooks);
  const basic = `Basic ${btoa(`${keyId}:${keySecret}`)}`;

  const settleLater = (response: Response, operation: FakeOperation) => {
    if (operation !== "refunds.create" || options.settleRefundsAfterMs === undefined || !response.ok) return;
    response.clone().json().then(({ id }) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        ledger.settleRefund(id, "processed");
      }, options.settleRefundsAfterMs);
      timers.add(timer);
    });
  };

  const checkoutPay = async (request: Request): Promise<Response> => {
    // the browser holds only the key id, as with Razorpay's own Checkout
    const input = await request.json().catch(() => ({})) as Record<string, unknown>;
    requests.push({ operation: "checkout.pay", method: "POST", path: "/v1/checkout/pay", body: input });
    if (input.key_id !== keyId) {
      return Response.json({ error: { description: "The api key provided is invalid" } }, {
        status: 401,
        headers: _CORS,
      });
    }
    const notes = readNotes(input.notes);
    const answer = await ledger.pay(String(input.order_id ?? ""), {
      method: FAKE_METHODS.includes(input.method as FakeMethod) ? input.method as FakeMethod : "card",
      outcome: input.outcome === "authorized" || input.outcome === "failed" ? input.outcome : "captured",
      notes: notes instanceof RazorpayRefusal ? [] : notes,
    });
    return Response.json(answer, { status: "error" in answer ? 400 : 200, headers: _CORS });
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: _CORS });
    if (request.method === "GET" && path === "/v1/checkout.js") {
      return new Response(_SCRIPT, {
        headers: { ..._CORS, "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" },
      });
    }
    if (request.method === "POST" && path === "/v1/checkout/pay") return checkoutPay(request);
    if (request.headers.get("authorization") !== basic) {
      requests.push({ operation: "unauthorized", method: request.method, path, body: null });
      return razorpayError(401, "Authentication failed");
    }
    const call = await matchApiCall(ledger, request);
    if (!call) return razorpayError(400, "The requested URL was not found on the server.");
    requests.push({
      operation: call.operation,
      method: request.method,
      path: path + url.search,
      body: call.body,
    });
    const failure = failures.get(call.operation)?.shift();
    if (failure === "hang") {
      await new Promise<void>((resolve) => hung.add(resolve));
      return razorpayError(500, _SERVER_ERROR);
    }
    if (failure === "error") return razorpayError(500, _SERVER_ERROR);
    if (failure === "act-then-fail") {
      const done = call.run();
      settleLater(done, call.operation);
      await done.body?.cancel();
      return razorpayError(500, _SERVER_ERROR);
    }
    if (failure) return razorpayError(failure.status, failure.description);
    const response = call.run();
    settleLater(response, call.operation);
    return response;
  };

  const server = Deno.serve(
    { port: options.port ?? 0, hostname: options.hostname ?? "127.0.0.1", onListen: () => {} },
    handle,
  );
  const url = `http://${server.addr.hostname}:${server.addr.port}`;
  return {
    url,
    keyId,
    keySecret,
    webhookSecret,
    checkoutScriptUrl: `${url}/v1/checkout.js`,
    ledger,
    requests,
    webhooks,
    fail: (operation, ...answers) =>
      void failures.set(operation, [...(failures.get(operation) ?? []), ...answers]),
    pay: (orderId, payOptions) => ledger.pay(orderId, payOptions),
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const resolve of hung) resolve();
      hung.clear();
      await webhooks.settled();
      await server.shutdown();
    },
  };
}
