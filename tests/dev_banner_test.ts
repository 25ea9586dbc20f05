/**
 * What `deno task dev` prints at start: a secret the environment gives (the service-role key, the secret keys,
 * Razorpay's key secret and webhook secret) is named by its variable and never shown, since a terminal's
 * output is shared and logged; only the stack's own local defaults, which guard nothing, are printed.
 */
import assert from "node:assert/strict";
import { devBanner } from "../local/dev_banner.ts";
import { DEMO_KEYS, DEMO_RAZORPAY_WEBHOOK_SECRET } from "../local/stack.ts";
import { LOCAL_RAZORPAY_KEYS, startFakeRazorpay } from "./support/fake_razorpay.ts";

const SECRETS = {
  SUPABASE_SERVICE_ROLE_KEY: "service-role-key-from-the-environment",
  SUPABASE_SECRET_KEYS: JSON.stringify({
    default: "sb_secret_FromTheEnvironment01",
    cron: "sb_secret_Cron02",
  }),
  RAZORPAY_KEY_SECRET: "razorpay-key-secret-from-the-environment",
  RAZORPAY_WEBHOOK_SECRET: "razorpay-webhook-secret-from-the-environment",
};

/** The banner of a stack started with `env`, as dev_server.ts prints it. */
async function bannerOf(env: Record<string, string>, legacyKeysDisabled = false): Promise<string> {
  const fake = startFakeRazorpay({
    keySecret: env.RAZORPAY_KEY_SECRET,
    webhookSecret: env.RAZORPAY_WEBHOOK_SECRET ?? DEMO_RAZORPAY_WEBHOOK_SECRET,
  });
  try {
    return devBanner(
      {
        url: "http://127.0.0.1:54321",
        anonKey: DEMO_KEYS.anon,
        serviceKey: env.SUPABASE_SERVICE_ROLE_KEY ?? DEMO_KEYS.serviceRole,
        publicKey: DEMO_KEYS.anon,
        legacyKeysDisabled,
        razorpay: fake,
        razorpayWebhookSecret: fake.webhookSecret,
      },
      env,
      "pglite",
    );
  } finally {
    await fake.close();
  }
}

Deno.test("devBanner() names the secrets the environment gives by their variables and prints none of them", async () => {
  for (const legacyKeysDisabled of [false, true]) {
    const banner = await bannerOf(
      { ...SECRETS, SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: "sb_publishable_Shown01" }) },
      legacyKeysDisabled,
    );
    const shown = [
      SECRETS.SUPABASE_SERVICE_ROLE_KEY,
      "sb_secret_FromTheEnvironment01",
      "sb_secret_Cron02",
      SECRETS.RAZORPAY_KEY_SECRET,
      SECRETS.RAZORPAY_WEBHOOK_SECRET,
    ].filter((secret) => banner.includes(secret));
    assert.deepEqual(shown, [], banner);
    assert.match(banner, /^ {2}secret keys: {7}SUPABASE_SECRET_KEYS \(default, cron\) \(not printed\)$/m);
    assert.match(banner, /^ {2}publishable keys: {2}\{"default":"sb_publishable_Shown01"\}$/m);
    assert.match(banner, /key secret: {6}RAZORPAY_KEY_SECRET$/m);
    if (!legacyKeysDisabled) {
      assert.match(banner, /^ {2}service_role key: {2}SUPABASE_SERVICE_ROLE_KEY \(not printed\)$/m);
    }
  }
});

Deno.test("devBanner() prints the stack's own local keys, which guard nothing, when the environment sets none", async () => {
  const banner = await bannerOf({});
  for (
    const local of [
      DEMO_KEYS.anon,
      DEMO_KEYS.serviceRole,
      LOCAL_RAZORPAY_KEYS.keySecret,
      DEMO_RAZORPAY_WEBHOOK_SECRET,
    ]
  ) {
    assert.ok(banner.includes(local), local);
  }
});
