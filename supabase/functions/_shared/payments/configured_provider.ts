/**
 * The payment provider a function gets from its configuration: Razorpay's API when RAZORPAY_KEY_ID and
 * RAZORPAY_KEY_SECRET are set, else none, and the one answer for none (503 PAYMENT_PROVIDER_NOT_CONFIGURED).
 */
import type { Config } from "../config.ts";
import { OrderError } from "../errors.ts";
import type { PaymentProvider } from "./payment_provider.ts";
import { razorpayApi } from "./razorpay_api.ts";

/** Razorpay's API at RAZORPAY_API_URL with the configured keys and timeout; null without keys. */
export function configuredProvider(
  config: Pick<Config, "razorpay" | "razorpayApiUrl" | "paymentProviderTimeoutMs">,
  fetch?: typeof globalThis.fetch,
): PaymentProvider | null {
  if (!config.razorpay) return null;
  return razorpayApi({
    ...config.razorpay,
    baseUrl: config.razorpayApiUrl,
    timeoutMs: config.paymentProviderTimeoutMs,
    fetch,
  });
}

/** The provider, or 503 PAYMENT_PROVIDER_NOT_CONFIGURED (nothing read, nothing stored). */
export function requireProvider(provider: PaymentProvider | null): PaymentProvider {
  if (provider) return provider;
  throw new OrderError(
    "PAYMENT_PROVIDER_NOT_CONFIGURED",
    "RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET are not set: no payment can be opened or verified",
  );
}
