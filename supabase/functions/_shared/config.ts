/**
 * Configuration, read and validated once at start. `parseConfig` is pure (it receives the environment),
 * and fails with a sentence that names the variable.
 */
import type { ApiKeys } from "./http/auth.ts";
import { ConfigError, parseProjectKeys } from "./project_keys.ts";
import { ANSWER_GRACE_MS } from "./orders/database_call.ts";
import type { UnpaidOrderWindows } from "./orders/unpaid_orders.ts";

/** The service's settings. */
export interface Config {
  /** APP_ENV=production, or running on Supabase's hosted edge (SB_REGION is set there). */
  production: boolean;
  supabaseUrl: string;
  /**
   * The key the function calls the database with: SUPABASE_SECRET_KEYS.default, else SUPABASE_SERVICE_ROLE_KEY
   * (a project that disabled its legacy keys still carries the refused JWT in SUPABASE_SERVICE_ROLE_KEY);
   * never the legacy key under LEGACY_API_KEYS=disabled (`project_keys.ts`).
   */
  serviceKey: string;
  /** The keys a caller may present: without the legacy ones under LEGACY_API_KEYS=disabled. */
  apiKeys: ApiKeys;
  allowedOrigins: string[];
  /** With {orderId}, {orderNumber} and {token} placeholders. */
  trackingUrlTemplate: string;
  /** ORDER_TRACKING_SECRET: the key of each order's tracking token (the `{token}` of the link). */
  trackingSecret: string;
  emailFrom: string;
  /**
   * Resend, when RESEND_API_KEY is set: its key, base URL, and the account's rate limit
   * (RESEND_REQUESTS_PER_SECOND, default 2), the pace of the outbox drain's requests.
   */
  resend: { apiKey: string; baseUrl: string | undefined; requestsPerSecond: number } | null;
  /** EMAIL_SEND_TIMEOUT_MS: every request to the e-mail provider is abandoned after this (default 10 s). */
  emailSendTimeoutMs: number;
  /**
   * OUTBOX_DRAIN_BUDGET_MS: one drain run takes no work after this (default 40 s), and answers within it plus
   * EMAIL_SEND_TIMEOUT_MS and its last database calls: at most {@linkcode MAX_DRAIN_RUN_MS} for the two.
   */
  outboxDrainBudgetMs: number;
  /**
   * The database step's time budget (at most {@linkcode MAX_DATABASE_TIMEOUT_MS}): its deadline is the order's
   * time plus this; past it, 500 and nothing stored.
   */
  databaseTimeoutMs: number;
  rateLimits: RateLimits;
  /** Razorpay's webhook secret (RAZORPAY_WEBHOOK_SECRET): payment-webhook refuses every event without it. */
  razorpayWebhookSecret: string | null;
  /**
   * payment-webhook's database budget (PAYMENT_WEBHOOK_TIMEOUT_MS): confirm_payment's deadline is the
   * call's start plus this, so the gateway gets its answer within {@linkcode RAZORPAY_ANSWER_LIMIT_MS}.
   */
  paymentWebhookTimeoutMs: number;
  /**
   * Razorpay's API keys (RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET, Basic auth); null without them: start-payment
   * and verify-payment then answer 503 PAYMENT_PROVIDER_NOT_CONFIGURED.
   */
  razorpay: RazorpayKeys | null;
  /** RAZORPAY_API_URL: Razorpay's API (default https://api.razorpay.com), or the local stack's fake. */
  razorpayApiUrl: string;
  /** PAYMENT_PROVIDER_TIMEOUT_MS (default 5000): every call to Razorpay gives up after this. */
  paymentProviderTimeoutMs: number;
  /**
   * How long an order may stay unpaid before the outbox drain's run cancels it: UNPAID_GATEWAY_ORDER_MINUTES
   * (default 30) and UNPAID_UPI_DIRECT_ORDER_HOURS (default 72); 0 turns a method's cancellation off.
   */
  unpaidOrders: UnpaidOrderWindows;
}

/** Razorpay's API keys: the key id is public (Checkout shows it), the secret never leaves the server. */
export interface RazorpayKeys {
  keyId: string;
  keySecret: string;
}

/** Razorpay's API, unless RAZORPAY_API_URL names another (the local stack's fake). */
export const RAZORPAY_API_URL = "https://api.razorpay.com";

/** The longest PAYMENT_PROVIDER_TIMEOUT_MS: a buyer waits on it, and Razorpay answers in well under this. */
export const MAX_PAYMENT_PROVIDER_TIMEOUT_MS = 30_000;

/** Razorpay counts a webhook not answered within this as failed, and retries it. */
export const RAZORPAY_ANSWER_LIMIT_MS = 5_000;

/**
 * The largest PAYMENT_WEBHOOK_TIMEOUT_MS, and its default: the database call's deadline plus the
 * {@linkcode ANSWER_GRACE_MS} its caller waits past it for the answer, plus half a second for the rest of
 * the request (the signature, the answer's trip), stays within Razorpay's 5 s.
 */
export const MAX_PAYMENT_WEBHOOK_TIMEOUT_MS = RAZORPAY_ANSWER_LIMIT_MS - ANSWER_GRACE_MS - 500;

/** OUTBOX_DRAIN_BUDGET_MS's default. */
export const DEFAULT_OUTBOX_DRAIN_BUDGET_MS = 40_000;

/** EMAIL_SEND_TIMEOUT_MS's default. */
export const DEFAULT_EMAIL_SEND_TIMEOUT_MS = 10_000;

/**
 * How long pg_net waits for the drain's answer: `timeout_milliseconds` of the cron job's request
 * (`outbox_drain_job_command()`, 20261123000700_outbox_drain_schedule.sql). A run that answers later is
 * recorded as a time-out, and the next minute's run may start while it still sends.
 */
export const DRAIN_SCHEDULE_TIMEOUT_MS = 55_000;

/**
 * What a run keeps, after its last request to a provider has ended, for its last database calls (the last
 * results, the rows handed back, the dead rows' report) and its answer's trip.
 */
export const DRAIN_CLOSING_MS = 5_000;

/**
 * The longest drain run, budget plus one send's time-out: its closing calls included, it answers within the
 * schedule's time-out (and so within the 150 s wall clock of a Supabase Edge Function).
 */
export const MAX_DRAIN_RUN_MS = DRAIN_SCHEDULE_TIMEOUT_MS - DRAIN_CLOSING_MS;

/** Order-creation limits per client IP and per buyer e-mail, per fixed window (a limit of 0 turns one off). */
export interface RateLimits {
  perIp: { limit: number; windowSeconds: number };
  perEmail: { limit: number; windowSeconds: number };
}

export { ConfigError };

function _positiveInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(`${name} must be a whole number >= 0: got ${raw}`);
  }
  return value;
}

/**
 * The longest rate-limit window: the drain purges windows that started 2 days ago
 * (`purge_expired_order_guards`), so a longer window would be emptied while still counting.
 */
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 2 * 24 * 3600;

function _window(env: Record<string, string | undefined>, name: string): number {
  const seconds = _positiveInt(env, name, 3600);
  if (seconds > MAX_RATE_LIMIT_WINDOW_SECONDS) {
    throw new ConfigError(
      `${name} must be at most ${MAX_RATE_LIMIT_WINDOW_SECONDS} (2 days, how long windows are kept): got ${seconds}`,
    );
  }
  return seconds;
}

function _url(name: string, value: string): string {
  try {
    return new URL(value).href.replace(/\/$/, "");
  } catch {
    throw new ConfigError(`${name} must be an absolute URL: got ${JSON.stringify(value)}`);
  }
}

function _paymentWebhookTimeout(env: Record<string, string | undefined>): number {
  const ms = _positiveInt(env, "PAYMENT_WEBHOOK_TIMEOUT_MS", MAX_PAYMENT_WEBHOOK_TIMEOUT_MS);
  if (ms > MAX_PAYMENT_WEBHOOK_TIMEOUT_MS) {
    throw new ConfigError(
      `PAYMENT_WEBHOOK_TIMEOUT_MS must be at most ${MAX_PAYMENT_WEBHOOK_TIMEOUT_MS} (Razorpay waits 5 s for an answer, ${ANSWER_GRACE_MS} ms of them are the answer's grace): got ${ms}`,
    );
  }
  return ms;
}

/**
 * The largest DATABASE_TIMEOUT_MS, and its default: the database caps every writer's deadline at 6 s from
 * its start (start_deadline), below the 8 s statement timeout Supabase gives the API roles, so a longer
 * budget would be cut short there.
 */
export const MAX_DATABASE_TIMEOUT_MS = 6_000;

function _databaseTimeout(env: Record<string, string | undefined>): number {
  const ms = _positiveInt(env, "DATABASE_TIMEOUT_MS", MAX_DATABASE_TIMEOUT_MS);
  if (ms > MAX_DATABASE_TIMEOUT_MS) {
    throw new ConfigError(
      `DATABASE_TIMEOUT_MS must be at most ${MAX_DATABASE_TIMEOUT_MS} (the database ends every writer's waits 6 s after its start): got ${ms}`,
    );
  }
  return ms;
}

function _drainTimes(env: Record<string, string | undefined>): { sendTimeoutMs: number; budgetMs: number } {
  const sendTimeoutMs = _positiveInt(env, "EMAIL_SEND_TIMEOUT_MS", DEFAULT_EMAIL_SEND_TIMEOUT_MS);
  if (sendTimeoutMs < 1) throw new ConfigError("EMAIL_SEND_TIMEOUT_MS must be at least 1: got 0");
  const budgetMs = _positiveInt(env, "OUTBOX_DRAIN_BUDGET_MS", DEFAULT_OUTBOX_DRAIN_BUDGET_MS);
  if (budgetMs + sendTimeoutMs > MAX_DRAIN_RUN_MS) {
    throw new ConfigError(
      `OUTBOX_DRAIN_BUDGET_MS + EMAIL_SEND_TIMEOUT_MS must be at most ${MAX_DRAIN_RUN_MS} (a drain run, with ${DRAIN_CLOSING_MS} ms for its last database calls, must answer within the ${DRAIN_SCHEDULE_TIMEOUT_MS} ms the schedule's pg_net request waits): got ${budgetMs} + ${sendTimeoutMs}`,
    );
  }
  return { sendTimeoutMs, budgetMs };
}

function _upTo(env: Record<string, string | undefined>, name: string, fallback: number, max: number): number {
  const value = _positiveInt(env, name, fallback);
  if (value > max) throw new ConfigError(`${name} must be at most ${max}: got ${value}`);
  return value;
}

/** The tracking link outside production, when none is set: a storefront's tracking page on port 3000. */
export const DEV_TRACKING_URL = "http://localhost:3000/track?order={orderId}&token={token}";

/** The tracking secret outside production, when none is set. It protects nothing. */
export const DEV_TRACKING_SECRET = "local-order-tracking-secret-for-development-only";

/** The shortest ORDER_TRACKING_SECRET taken: 32 characters, e.g. `openssl rand -base64 32` (44). */
export const MIN_TRACKING_SECRET_LENGTH = 32;

function _trackingSecret(env: Record<string, string | undefined>, production: boolean): string {
  const secret = env.ORDER_TRACKING_SECRET;
  if (!secret) {
    if (production) {
      throw new ConfigError(
        "ORDER_TRACKING_SECRET is not set: tracking links are signed with it (e.g. openssl rand -base64 32)",
      );
    }
    return DEV_TRACKING_SECRET;
  }
  if (secret.length < MIN_TRACKING_SECRET_LENGTH) {
    throw new ConfigError(
      `ORDER_TRACKING_SECRET must be at least ${MIN_TRACKING_SECRET_LENGTH} characters: got ${secret.length}`,
    );
  }
  return secret;
}

function _razorpayKeys(env: Record<string, string | undefined>): RazorpayKeys | null {
  const keyId = env.RAZORPAY_KEY_ID?.trim();
  const keySecret = env.RAZORPAY_KEY_SECRET?.trim();
  if (!keyId && !keySecret) return null;
  if (!keyId || !keySecret) {
    throw new ConfigError(
      `${
        keyId ? "RAZORPAY_KEY_SECRET" : "RAZORPAY_KEY_ID"
      } is not set: Razorpay's API needs its key id and secret together`,
    );
  }
  return { keyId, keySecret };
}

function _providerTimeout(env: Record<string, string | undefined>): number {
  const ms = _upTo(env, "PAYMENT_PROVIDER_TIMEOUT_MS", 5_000, MAX_PAYMENT_PROVIDER_TIMEOUT_MS);
  if (ms === 0) throw new ConfigError("PAYMENT_PROVIDER_TIMEOUT_MS must be at least 1");
  return ms;
}

/** Reads the configuration from an environment object (Deno.env.toObject() in production). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const production = env.APP_ENV === "production" || Boolean(env.SB_REGION);
  if (!env.SUPABASE_URL) {
    throw new ConfigError("SUPABASE_URL is not set: the function needs its project's URL");
  }
  const { serviceKey, apiKeys } = parseProjectKeys(env);

  const emailFrom = env.ORDER_EMAIL_FROM || (production ? "" : "Orders <orders@example.com>");
  if (!emailFrom) throw new ConfigError("ORDER_EMAIL_FROM is not set: order e-mails need a sender address");
  if (/[\r\n]/.test(emailFrom)) throw new ConfigError("ORDER_EMAIL_FROM must be one line");
  if (production && !env.RESEND_API_KEY) {
    throw new ConfigError("RESEND_API_KEY is not set: production sends e-mail");
  }
  const trackingUrlTemplate = env.ORDER_TRACKING_URL ||
    (production ? "" : DEV_TRACKING_URL);
  if (!trackingUrlTemplate) throw new ConfigError("ORDER_TRACKING_URL is not set: buyer e-mails link to it");
  const trackingSecret = _trackingSecret(env, production);
  const drain = _drainTimes(env);
  const requestsPerSecond = _positiveInt(env, "RESEND_REQUESTS_PER_SECOND", 2);
  if (requestsPerSecond < 1) throw new ConfigError("RESEND_REQUESTS_PER_SECOND must be at least 1: got 0");

  return {
    production,
    supabaseUrl: _url("SUPABASE_URL", env.SUPABASE_URL),
    serviceKey,
    apiKeys,
    allowedOrigins: (env.ALLOWED_ORIGINS || "*").split(",").map((origin) => origin.trim()).filter(Boolean),
    trackingUrlTemplate,
    trackingSecret,
    emailFrom,
    resend: env.RESEND_API_KEY
      ? {
        apiKey: env.RESEND_API_KEY,
        baseUrl: env.RESEND_BASE_URL ? _url("RESEND_BASE_URL", env.RESEND_BASE_URL) : undefined,
        requestsPerSecond,
      }
      : null,
    emailSendTimeoutMs: drain.sendTimeoutMs,
    outboxDrainBudgetMs: drain.budgetMs,
    // below the 8 s statement timeout Supabase sets for its API roles, so ours decides first
    databaseTimeoutMs: _databaseTimeout(env),
    rateLimits: {
      perIp: {
        limit: _positiveInt(env, "RATE_LIMIT_PER_IP", 120),
        windowSeconds: _window(env, "RATE_LIMIT_PER_IP_WINDOW_SECONDS"),
      },
      perEmail: {
        limit: _positiveInt(env, "RATE_LIMIT_PER_EMAIL", 10),
        windowSeconds: _window(env, "RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS"),
      },
    },
    razorpayWebhookSecret: env.RAZORPAY_WEBHOOK_SECRET || null,
    paymentWebhookTimeoutMs: _paymentWebhookTimeout(env),
    razorpay: _razorpayKeys(env),
    razorpayApiUrl: env.RAZORPAY_API_URL ? _url("RAZORPAY_API_URL", env.RAZORPAY_API_URL) : RAZORPAY_API_URL,
    paymentProviderTimeoutMs: _providerTimeout(env),
    unpaidOrders: {
      // at most a year: cancel_unpaid_orders refuses longer windows
      gatewayMinutes: _upTo(env, "UNPAID_GATEWAY_ORDER_MINUTES", 30, 525_600),
      upiDirectHours: _upTo(env, "UNPAID_UPI_DIRECT_ORDER_HOURS", 72, 8_760),
    },
  };
}
