/**
 * The local stack: one HTTP server with the functions at /functions/v1/<name> (create-order,
 * update-order-status, start-payment, verify-payment, payment-webhook, outbox-drain, track-order), a fake
 * Razorpay beside it unless RAZORPAY_API_URL is set (local_razorpay.ts), the PostgREST stand-in (RPC at
 * /rest/v1/rpc/<fn>, reads at /rest/v1/<table>), the Auth key set at /auth/v1/.well-known/jwks.json and
 * /auth/v1/user, a tracking page at /track and the example checkout at /storefront/, over one database. The functions are the very handlers
 * Supabase runs, and they reach the database and the key set through supabase-js, as they do there.
 */
import { loadDependencies } from "../supabase/functions/create-order/dependencies.ts";
import { createOrderHandler } from "../supabase/functions/create-order/handler.ts";
import { loadDrainDependencies } from "../supabase/functions/outbox-drain/dependencies.ts";
import { outboxDrainHandler } from "../supabase/functions/outbox-drain/handler.ts";
import { loadWebhookDependencies } from "../supabase/functions/payment-webhook/dependencies.ts";
import { paymentWebhookHandler } from "../supabase/functions/payment-webhook/handler.ts";
import { loadStatusDependencies } from "../supabase/functions/update-order-status/dependencies.ts";
import { updateOrderStatusHandler } from "../supabase/functions/update-order-status/handler.ts";
import type { serveFunction } from "../supabase/functions/_shared/http/serve_function.ts";
import type { Logger } from "../supabase/functions/_shared/http/log.ts";
import type { Mailer } from "../supabase/functions/_shared/email/mailer.ts";
import { STORE_BUSY_SQLSTATE } from "../supabase/functions/_shared/orders/database_errors.ts";
import { trackOrderHandler } from "../supabase/functions/track-order/handler.ts";
import { loadTrackOrderDependencies } from "../supabase/functions/track-order/dependencies.ts";
import { loadStartPaymentDependencies } from "../supabase/functions/start-payment/dependencies.ts";
import { startPaymentHandler } from "../supabase/functions/start-payment/handler.ts";
import { loadVerifyPaymentDependencies } from "../supabase/functions/verify-payment/dependencies.ts";
import { verifyPaymentHandler } from "../supabase/functions/verify-payment/handler.ts";
import type { FakeRazorpay, FakeRazorpayOptions } from "./fake_razorpay/fake_razorpay.ts";
import { startLocalRazorpay } from "./local_razorpay.ts";
import { createAuthRoutes } from "./auth_routes.ts";
import { createSigningKey, type LocalSigningKey } from "./auth_keys.ts";
import { createReadRoute } from "./postgrest_read.ts";
import { createRpcRoute } from "./postgrest_rpc.ts";
import { storefrontResponse } from "./storefront_routes.ts";
import { trackingPage } from "./tracking_page.ts";
import type { SqlDatabase } from "./sql_database.ts";
import { legacyKeysDisabled } from "../supabase/functions/_shared/project_keys.ts";
import { checkStackKeys } from "./stack_keys.ts";

/** Local demo keys, used when the environment sets none. They guard nothing: the stack is local only. */
export const DEMO_KEYS = {
  anon: "local-anon-key-for-development-only",
  serviceRole: "local-service-role-key-for-development-only",
} as const;

/** The local Razorpay webhook secret, used when the environment sets no RAZORPAY_WEBHOOK_SECRET. */
export const DEMO_RAZORPAY_WEBHOOK_SECRET = "local-razorpay-webhook-secret-for-development-only";

/** Options of {@linkcode startLocalStack}. */
export interface LocalStackOptions {
  db: SqlDatabase;
  /** 0 (default) picks a free port. */
  port?: number;
  hostname?: string;
  /**
   * Extra environment of the function (ALLOWED_ORIGINS, ORDER_TRACKING_URL, rate limits, ...).
   * LOCAL_STACK_STATS=1 adds `GET /__stats`: the RPC route's calls per function, and the create_order calls
   * refused with STORE_BUSY (tried again by the function), for the bench.
   */
  env?: Record<string, string | undefined>;
  /** The mailer of both functions; default: Resend when RESEND_API_KEY is set. */
  mailer?: () => Promise<Mailer>;
  clock?: () => Date;
  log?: Logger;
  /** The drain's sleep between retries (tests hand in one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Plays a project that has disabled its legacy keys: the RPC route refuses the anon and service-role
   * keys (401 "Legacy API keys are disabled"), while the function's environment still carries them.
   * Default: whether `env` sets LEGACY_API_KEYS=disabled (the secret the functions read for it).
   */
  legacyKeysDisabled?: boolean;
  /** The key local user tokens are signed with and the key set serves; default: a new one for this stack. */
  signingKey?: LocalSigningKey;
  /** Sees a copy of every function's answer (the tests check each against openapi.json). */
  observeFunctionResponse?: (path: string, method: string, response: Response) => void;
  /** Adjusts the fake Razorpay (its webhook events, when refunds settle); unused with RAZORPAY_API_URL. */
  fakeRazorpay?: FakeRazorpayOptions;
}

/** A running local stack. */
export interface LocalStack {
  url: string;
  anonKey: string;
  serviceKey: string;
  /**
   * The key a browser or a curl uses: the first of SUPABASE_PUBLISHABLE_KEYS when set, else the anon key.
   * The storefront, the order page and the banner's example use it, so they work with legacy keys disabled.
   */
  publicKey: string;
  /** The key a back office uses: SUPABASE_SECRET_KEYS.default when set, else the service-role key. */
  secretKey: string;
  /** LEGACY_API_KEYS=disabled: the anon and service-role keys are refused. */
  legacyKeysDisabled: boolean;
  /** The secret payment-webhook checks signatures with. */
  razorpayWebhookSecret: string;
  /** The fake Razorpay the payment functions call; null when RAZORPAY_API_URL names another. */
  razorpay: FakeRazorpay | null;
  /** Calls per function that reached the database through the RPC route. */
  rpcCalls: Map<string, number>;
  /** The key the stack's key set publishes: `mintUserToken(stack.signingKey, …)` signs in a local user. */
  signingKey: LocalSigningKey;
  /** Resolves when every e-mail send started so far has finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the stack; the function's configuration comes from `options.env` over the local defaults. Throws
 * a ConfigError for keys it cannot use (`checkStackKeys`), as the functions do.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const env = options.env ?? {};
  // an empty variable is no key: the demo key stands in, as for an unset one
  const anonKey = env.SUPABASE_ANON_KEY || DEMO_KEYS.anon;
  const serviceKey = env.SUPABASE_SERVICE_ROLE_KEY || DEMO_KEYS.serviceRole;
  const { publishable, secret, legacyDisabled } = checkStackKeys(
    env,
    options.legacyKeysDisabled ?? legacyKeysDisabled(env),
  );
  const publicKey = publishable[0] ?? anonKey;
  const secretKey = secret.default ?? serviceKey;
  const signingKey = options.signingKey ?? await createSigningKey();
  const rpcCalls = new Map<string, number>();
  let storeBusy = 0;
  const background = new Set<Promise<unknown>>();
  const keys = {
    anon: [anonKey, ...publishable],
    serviceRole: [serviceKey, ...Object.values(secret)],
    disabled: legacyDisabled ? [anonKey, serviceKey] : [],
  };
  const rpc = createRpcRoute(options.db, keys, {
    signingKey,
    onCall: (fn) => rpcCalls.set(fn, (rpcCalls.get(fn) ?? 0) + 1),
    onFailure: (fn, sqlstate) => {
      if (fn === "create_order" && sqlstate === STORE_BUSY_SQLSTATE) storeBusy++;
    },
  });
  const read = createReadRoute(options.db, keys, signingKey);
  const auth = createAuthRoutes(signingKey);

  // The bench's check that each order took exactly one create_order call: only when asked for.
  const statsRoute = env.LOCAL_STACK_STATS === "1";

  // assigned once the server is listening: the functions' SUPABASE_URL is the server's own address
  const functions = new Map<string, ReturnType<typeof serveFunction>>();
  const server = Deno.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? "127.0.0.1",
    onListen: () => {},
  }, async (request, info) => {
    const { pathname } = new URL(request.url);
    const handleFunction = functions.get(pathname);
    if (handleFunction) {
      const response = await handleFunction(request, info as Deno.ServeHandlerInfo<Deno.NetAddr>);
      options.observeFunctionResponse?.(
        pathname.slice("/functions/v1".length),
        request.method,
        response.clone(),
      );
      return response;
    }
    const rpcMatch = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(pathname);
    if (rpcMatch) return rpc(request, rpcMatch[1]);
    const tableMatch = /^\/rest\/v1\/([^/]+)$/.exec(pathname);
    if (tableMatch) return read(request, tableMatch[1]);
    if (pathname.startsWith("/auth/v1/")) return auth(request, pathname.slice("/auth/v1".length));
    if (request.method === "GET" || request.method === "HEAD") {
      const origin = new URL(request.url).origin;
      const checkoutScriptUrl = razorpay.fake?.checkoutScriptUrl ?? null;
      const page = pathname === "/track"
        ? trackingPage(origin, { anonKey: publicKey, checkoutScriptUrl })
        : pathname.startsWith("/storefront")
        ? await storefrontResponse(pathname, origin, publicKey, { checkoutScriptUrl })
        : null;
      // HEAD is GET without the body, as any web server answers it (link checkers, curl -I)
      if (page) return request.method === "HEAD" ? _withoutBody(page) : page;
    }
    if (statsRoute && pathname === "/__stats" && request.method === "GET") {
      return Response.json({ rpcCalls: Object.fromEntries(rpcCalls), storeBusy });
    }
    return Response.json({ message: "no route" }, { status: 404 });
  });

  const url = `http://${server.addr.hostname}:${server.addr.port}`;
  const razorpayWebhookSecret = env.RAZORPAY_WEBHOOK_SECRET || DEMO_RAZORPAY_WEBHOOK_SECRET;
  const razorpay = startLocalRazorpay(env, url, razorpayWebhookSecret, options.fakeRazorpay);
  const functionEnv = {
    SUPABASE_URL: url,
    // the buyer's e-mail links to the stack's own tracking page unless a storefront's is set
    ORDER_TRACKING_URL: `${url}/track?order={orderId}&token={token}`,
    ...env,
    ...razorpay.env,
    SUPABASE_ANON_KEY: anonKey,
    SUPABASE_SERVICE_ROLE_KEY: serviceKey,
    RAZORPAY_WEBHOOK_SECRET: razorpayWebhookSecret,
  };
  const waitUntil = (work: Promise<unknown>) => {
    background.add(work);
    work.finally(() => background.delete(work));
  };
  const common = { mailer: options.mailer, clock: options.clock, log: options.log, waitUntil };
  functions.set(
    "/functions/v1/outbox-drain",
    outboxDrainHandler(
      loadDrainDependencies(functionEnv, { mailer: options.mailer, log: options.log, sleep: options.sleep }),
    ),
  );
  functions.set(
    "/functions/v1/track-order",
    trackOrderHandler(loadTrackOrderDependencies(functionEnv, { log: options.log })),
  );
  functions.set(
    "/functions/v1/create-order",
    createOrderHandler(loadDependencies(functionEnv, common)),
  );
  functions.set(
    "/functions/v1/update-order-status",
    updateOrderStatusHandler(loadStatusDependencies(functionEnv, common)),
  );
  functions.set(
    "/functions/v1/start-payment",
    startPaymentHandler(
      loadStartPaymentDependencies(functionEnv, { clock: options.clock, log: options.log }),
    ),
  );
  functions.set(
    "/functions/v1/verify-payment",
    verifyPaymentHandler(loadVerifyPaymentDependencies(functionEnv, common)),
  );
  functions.set(
    "/functions/v1/payment-webhook",
    paymentWebhookHandler(loadWebhookDependencies(functionEnv, common)),
  );

  const stack: LocalStack = {
    url,
    anonKey,
    serviceKey,
    publicKey,
    secretKey,
    legacyKeysDisabled: legacyDisabled,
    razorpayWebhookSecret,
    razorpay: razorpay.fake,
    rpcCalls,
    signingKey,
    async settled() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
    async close() {
      await this.settled();
      await razorpay.fake?.close();
      await server.shutdown();
    },
  };
  return stack;
}

/** `response`'s status and headers without its body: the answer to HEAD. */
function _withoutBody(response: Response): Response {
  response.body?.cancel();
  return new Response(null, { status: response.status, headers: response.headers });
}
