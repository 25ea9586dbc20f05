import assert from "node:assert/strict";
import { ConfigError, DEV_TRACKING_SECRET, parseConfig } from "../supabase/functions/_shared/config.ts";

const BASE = {
  SUPABASE_URL: "https://abc.supabase.co/",
  SUPABASE_SERVICE_ROLE_KEY: "service",
  SUPABASE_ANON_KEY: "anon",
};

function failure(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail("the configuration was accepted");
}

Deno.test("parseConfig() sorts legacy and newer keys by the role they stand for", () => {
  const config = parseConfig({
    ...BASE,
    SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_a","web":"sb_publishable_b"}',
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_c"}',
  });
  assert.deepEqual(config.apiKeys, {
    public: ["anon", "sb_publishable_a", "sb_publishable_b"],
    service: ["service", "sb_secret_c"],
  });
  assert.equal(config.supabaseUrl, "https://abc.supabase.co");
});

Deno.test("parseConfig() calls the database with the default secret key first, even beside a legacy service-role key", () => {
  // a project that disabled its legacy keys still carries the (refused) JWT in SUPABASE_SERVICE_ROLE_KEY
  const config = parseConfig({
    ...BASE,
    SUPABASE_SECRET_KEYS: '{"ci":"sb_secret_b","default":"sb_secret_c"}',
  });
  assert.equal(config.serviceKey, "sb_secret_c");
  assert.deepEqual(config.apiKeys.service, ["service", "sb_secret_b", "sb_secret_c"]);
  assert.equal(
    parseConfig({ SUPABASE_URL: BASE.SUPABASE_URL, SUPABASE_SECRET_KEYS: '{"default":"sb_secret_c"}' })
      .serviceKey,
    "sb_secret_c",
  );
});

Deno.test("parseConfig() calls the database with SUPABASE_SERVICE_ROLE_KEY when no default secret key is set", () => {
  assert.equal(parseConfig({ ...BASE, SUPABASE_SECRET_KEYS: '{"ci":"sb_secret_b"}' }).serviceKey, "service");
});

Deno.test("parseConfig() with LEGACY_API_KEYS=disabled accepts no legacy key and calls the database with the default secret key", () => {
  const config = parseConfig({
    ...BASE,
    LEGACY_API_KEYS: "disabled",
    SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_a"}',
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_c","ci":"sb_secret_d"}',
  });
  assert.deepEqual(config.apiKeys, { public: ["sb_publishable_a"], service: ["sb_secret_c", "sb_secret_d"] });
  assert.equal(config.serviceKey, "sb_secret_c");
  // "enabled", like unset, keeps both legacy keys
  assert.deepEqual(
    parseConfig({ ...BASE, LEGACY_API_KEYS: "enabled" }).apiKeys,
    { public: ["anon"], service: ["service"] },
  );
});

Deno.test("parseConfig() with LEGACY_API_KEYS=disabled and no default secret key names SUPABASE_SECRET_KEYS, never falling back to the legacy key", () => {
  assert.match(
    failure({ ...BASE, LEGACY_API_KEYS: "disabled", SUPABASE_SECRET_KEYS: '{"ci":"sb_secret_d"}' }),
    /^SUPABASE_SECRET_KEYS has no default entry: with LEGACY_API_KEYS=disabled /,
  );
  assert.match(failure({ ...BASE, LEGACY_API_KEYS: "disabled" }), /^SUPABASE_SECRET_KEYS /);
});

Deno.test("parseConfig() refuses a LEGACY_API_KEYS other than disabled or enabled, so a typo never leaves a leaked key working", () => {
  for (const value of ["Disabled", "off", "true", "disable"]) {
    assert.match(failure({ ...BASE, LEGACY_API_KEYS: value }), /^LEGACY_API_KEYS must be "disabled"/, value);
  }
});

Deno.test("parseConfig() names the variable that is missing or malformed", () => {
  assert.match(failure({ SUPABASE_SERVICE_ROLE_KEY: "s" }), /^SUPABASE_URL /);
  assert.match(
    failure({ SUPABASE_URL: "https://x.co" }),
    /^SUPABASE_SECRET_KEYS .* SUPABASE_SERVICE_ROLE_KEY /,
  );
  assert.match(failure({ ...BASE, SUPABASE_SECRET_KEYS: "sb_secret_c" }), /^SUPABASE_SECRET_KEYS /);
  assert.match(failure({ ...BASE, DATABASE_TIMEOUT_MS: "soon" }), /^DATABASE_TIMEOUT_MS /);
  assert.match(failure({ ...BASE, RESEND_BASE_URL: "not a url", RESEND_API_KEY: "k" }), /^RESEND_BASE_URL /);
});

Deno.test("parseConfig() requires ORDER_EMAIL_FROM, RESEND_API_KEY, ORDER_TRACKING_URL and ORDER_TRACKING_SECRET in production", () => {
  const production = { ...BASE, APP_ENV: "production" };
  assert.match(failure(production), /^ORDER_EMAIL_FROM /);
  assert.match(failure({ ...production, ORDER_EMAIL_FROM: "Shop <o@shop.example>" }), /^RESEND_API_KEY /);
  assert.match(
    failure({ ...production, ORDER_EMAIL_FROM: "Shop <o@shop.example>", RESEND_API_KEY: "re_x" }),
    /^ORDER_TRACKING_URL /,
  );
  const withUrl = {
    ...production,
    ORDER_EMAIL_FROM: "Shop <o@shop.example>",
    RESEND_API_KEY: "re_x",
    ORDER_TRACKING_URL: "https://shop.example/track?order={orderId}&token={token}",
  };
  assert.match(failure(withUrl), /^ORDER_TRACKING_SECRET /);
  const config = parseConfig({ ...withUrl, ORDER_TRACKING_SECRET: "s".repeat(32) });
  assert.equal(config.production, true);
  assert.equal(config.trackingSecret, "s".repeat(32));
});

Deno.test("parseConfig() refuses an ORDER_TRACKING_SECRET shorter than 32 characters, and defaults it only outside production", () => {
  assert.match(failure({ ...BASE, ORDER_TRACKING_SECRET: "s".repeat(31) }), /^ORDER_TRACKING_SECRET /);
  assert.equal(parseConfig(BASE).trackingSecret, DEV_TRACKING_SECRET);
  assert.equal(
    parseConfig(BASE).trackingUrlTemplate,
    "http://localhost:3000/track?order={orderId}&token={token}",
  );
});

Deno.test("parseConfig() refuses an ORDER_EMAIL_FROM with a line break", () => {
  assert.match(failure({ ...BASE, ORDER_EMAIL_FROM: "a@b.co\r\nBcc: x@y.z" }), /^ORDER_EMAIL_FROM /);
});

Deno.test("parseConfig() defaults origins to * and rate limits to 120 per IP and 10 per e-mail an hour", () => {
  const config = parseConfig(BASE);
  assert.deepEqual(config.allowedOrigins, ["*"]);
  assert.deepEqual(config.rateLimits, {
    perIp: { limit: 120, windowSeconds: 3600 },
    perEmail: { limit: 10, windowSeconds: 3600 },
  });
  assert.deepEqual(
    parseConfig({ ...BASE, ALLOWED_ORIGINS: "https://a.example, https://b.example" }).allowedOrigins,
    [
      "https://a.example",
      "https://b.example",
    ],
  );
});

Deno.test("parseConfig() gives the database step 6000 ms by default: below Supabase's 8 s statement timeout", () => {
  assert.equal(parseConfig(BASE).databaseTimeoutMs, 6_000);
  assert.equal(parseConfig({ ...BASE, DATABASE_TIMEOUT_MS: "2500" }).databaseTimeoutMs, 2_500);
});

Deno.test("parseConfig() refuses a DATABASE_TIMEOUT_MS over 6000: the database ends every writer's waits 6 s after its start", () => {
  assert.equal(parseConfig({ ...BASE, DATABASE_TIMEOUT_MS: "6000" }).databaseTimeoutMs, 6_000);
  assert.equal(
    failure({ ...BASE, DATABASE_TIMEOUT_MS: "6001" }),
    "DATABASE_TIMEOUT_MS must be at most 6000 (the database ends every writer's waits 6 s after its start): got 6001",
  );
});

Deno.test("parseConfig() gives payment-webhook's database call 2500 ms by default, and refuses more than Razorpay's 5 s allow", () => {
  assert.equal(parseConfig(BASE).paymentWebhookTimeoutMs, 2_500);
  assert.equal(parseConfig({ ...BASE, PAYMENT_WEBHOOK_TIMEOUT_MS: "1000" }).paymentWebhookTimeoutMs, 1_000);
  // DATABASE_TIMEOUT_MS is the other functions' budget, not the webhook's
  assert.equal(parseConfig({ ...BASE, DATABASE_TIMEOUT_MS: "6000" }).paymentWebhookTimeoutMs, 2_500);
  assert.equal(
    failure({ ...BASE, PAYMENT_WEBHOOK_TIMEOUT_MS: "4000" }),
    "PAYMENT_WEBHOOK_TIMEOUT_MS must be at most 2500 (Razorpay waits 5 s for an answer, 2000 ms of them are the answer's grace): got 4000",
  );
  assert.match(failure({ ...BASE, PAYMENT_WEBHOOK_TIMEOUT_MS: "soon" }), /^PAYMENT_WEBHOOK_TIMEOUT_MS /);
});

Deno.test("parseConfig() cancels unpaid gateway orders after 30 minutes and upi_direct ones after 72 hours by default", () => {
  assert.deepEqual(parseConfig(BASE).unpaidOrders, { gatewayMinutes: 30, upiDirectHours: 72 });
  assert.deepEqual(
    parseConfig({ ...BASE, UNPAID_GATEWAY_ORDER_MINUTES: "0", UNPAID_UPI_DIRECT_ORDER_HOURS: "48" })
      .unpaidOrders,
    { gatewayMinutes: 0, upiDirectHours: 48 },
  );
  assert.match(failure({ ...BASE, UNPAID_GATEWAY_ORDER_MINUTES: "-5" }), /^UNPAID_GATEWAY_ORDER_MINUTES /);
  assert.equal(
    failure({ ...BASE, UNPAID_UPI_DIRECT_ORDER_HOURS: "9000" }),
    "UNPAID_UPI_DIRECT_ORDER_HOURS must be at most 8760: got 9000",
  );
});

// pins a past bug: a weekly window was purged by every drain (windows are kept 2 days), so its limit reset
// each minute under cron
Deno.test("parseConfig() refuses a rate-limit window longer than the 2 days windows are kept", () => {
  assert.equal(
    failure({ ...BASE, RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "604800" }),
    "RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS must be at most 172800 (2 days, how long windows are kept): got 604800",
  );
  assert.equal(
    parseConfig({ ...BASE, RATE_LIMIT_PER_IP_WINDOW_SECONDS: "172800" }).rateLimits.perIp.windowSeconds,
    172800,
  );
});

Deno.test("parseConfig() reads Razorpay's key id and secret together, or neither (payments then answer 503)", () => {
  assert.equal(parseConfig(BASE).razorpay, null);
  assert.deepEqual(
    parseConfig({ ...BASE, RAZORPAY_KEY_ID: "rzp_test_abc", RAZORPAY_KEY_SECRET: "secret" }).razorpay,
    { keyId: "rzp_test_abc", keySecret: "secret" },
  );
  assert.equal(
    failure({ ...BASE, RAZORPAY_KEY_ID: "rzp_test_abc" }),
    "RAZORPAY_KEY_SECRET is not set: Razorpay's API needs its key id and secret together",
  );
  assert.equal(
    failure({ ...BASE, RAZORPAY_KEY_SECRET: "secret" }),
    "RAZORPAY_KEY_ID is not set: Razorpay's API needs its key id and secret together",
  );
});

Deno.test("parseConfig() calls https://api.razorpay.com unless RAZORPAY_API_URL names another, with 5000 ms a call by default", () => {
  assert.equal(parseConfig(BASE).razorpayApiUrl, "https://api.razorpay.com");
  assert.equal(parseConfig(BASE).paymentProviderTimeoutMs, 5_000);
  const local = parseConfig({
    ...BASE,
    RAZORPAY_API_URL: "http://127.0.0.1:4010/",
    PAYMENT_PROVIDER_TIMEOUT_MS: "800",
  });
  assert.equal(local.razorpayApiUrl, "http://127.0.0.1:4010");
  assert.equal(local.paymentProviderTimeoutMs, 800);
  assert.equal(
    failure({ ...BASE, RAZORPAY_API_URL: "api.razorpay.com" }),
    'RAZORPAY_API_URL must be an absolute URL: got "api.razorpay.com"',
  );
  assert.equal(
    failure({ ...BASE, PAYMENT_PROVIDER_TIMEOUT_MS: "0" }),
    "PAYMENT_PROVIDER_TIMEOUT_MS must be at least 1",
  );
  assert.equal(
    failure({ ...BASE, PAYMENT_PROVIDER_TIMEOUT_MS: "60000" }),
    "PAYMENT_PROVIDER_TIMEOUT_MS must be at most 30000: got 60000",
  );
});

Deno.test("parseConfig() gives a drain run 40000 ms, each e-mail request 10000 ms and Resend 2 requests a second by default", () => {
  const config = parseConfig({ ...BASE, RESEND_API_KEY: "re_x" });
  assert.deepEqual(
    [config.outboxDrainBudgetMs, config.emailSendTimeoutMs, config.resend?.requestsPerSecond],
    [40_000, 10_000, 2],
  );
  const set = parseConfig({
    ...BASE,
    RESEND_API_KEY: "re_x",
    OUTBOX_DRAIN_BUDGET_MS: "20000",
    EMAIL_SEND_TIMEOUT_MS: "5000",
    RESEND_REQUESTS_PER_SECOND: "10",
  });
  assert.deepEqual(
    [set.outboxDrainBudgetMs, set.emailSendTimeoutMs, set.resend?.requestsPerSecond],
    [20_000, 5_000, 10],
  );
});

Deno.test("parseConfig() refuses a drain run longer than the schedule's pg_net request waits for, and time-outs or rates of 0", () => {
  assert.equal(
    failure({ ...BASE, OUTBOX_DRAIN_BUDGET_MS: "45000", EMAIL_SEND_TIMEOUT_MS: "10000" }),
    "OUTBOX_DRAIN_BUDGET_MS + EMAIL_SEND_TIMEOUT_MS must be at most 50000 (a drain run, with 5000 ms for its last " +
      "database calls, must answer within the 55000 ms the schedule's pg_net request waits): got 45000 + 10000",
  );
  assert.match(failure({ ...BASE, EMAIL_SEND_TIMEOUT_MS: "0" }), /^EMAIL_SEND_TIMEOUT_MS must be at least 1/);
  assert.match(
    failure({ ...BASE, RESEND_API_KEY: "re_x", RESEND_REQUESTS_PER_SECOND: "0" }),
    /^RESEND_REQUESTS_PER_SECOND must be at least 1/,
  );
  assert.match(
    failure({ ...BASE, OUTBOX_DRAIN_BUDGET_MS: "soon" }),
    /^OUTBOX_DRAIN_BUDGET_MS must be a whole number/,
  );
});
