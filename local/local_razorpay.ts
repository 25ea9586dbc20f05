/**
 * Razorpay for the local stack: unless RAZORPAY_API_URL is set, the fake Razorpay (local/fake_razorpay/)
 * on loopback, with the environment's keys or the local ones, signing its webhooks with the stack's webhook
 * secret and sending them to the stack's payment-webhook. The functions then reach it through
 * RAZORPAY_API_URL exactly as they reach Razorpay.
 */
import {
  type FakeRazorpay,
  type FakeRazorpayOptions,
  LOCAL_RAZORPAY_KEYS,
  startFakeRazorpay,
} from "./fake_razorpay/fake_razorpay.ts";

/** What the functions' environment gains, and the fake when one runs. */
export interface LocalRazorpay {
  fake: FakeRazorpay | null;
  env: Record<string, string>;
}

/**
 * The fake, started unless `env.RAZORPAY_API_URL` names a Razorpay to use; `options` adjusts it (tests:
 * the events it sends, when refunds settle).
 */
export function startLocalRazorpay(
  env: Record<string, string | undefined>,
  stackUrl: string,
  webhookSecret: string,
  options: FakeRazorpayOptions = {},
): LocalRazorpay {
  if (env.RAZORPAY_API_URL) return { fake: null, env: {} };
  const fake = startFakeRazorpay({
    keyId: env.RAZORPAY_KEY_ID || LOCAL_RAZORPAY_KEYS.keyId,
    keySecret: env.RAZORPAY_KEY_SECRET || LOCAL_RAZORPAY_KEYS.keySecret,
    webhookSecret,
    webhookUrl: `${stackUrl}/functions/v1/payment-webhook`,
    ...options,
  });
  return {
    fake,
    env: { RAZORPAY_API_URL: fake.url, RAZORPAY_KEY_ID: fake.keyId, RAZORPAY_KEY_SECRET: fake.keySecret },
  };
}
