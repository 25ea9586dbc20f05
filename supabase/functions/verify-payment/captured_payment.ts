/**
 * A payment as verify-payment decides on it: fetched from the provider and, when only `authorized`,
 * captured for its own amount. A capture that fails while the payment was being captured anyway (the
 * account's auto-capture, the webhook's side, an earlier call whose answer was lost) is read again, so it
 * counts as the capture it is; any other failure is the provider's (502).
 */
import { OrderError } from "../_shared/errors.ts";
import type { PaymentProvider, ProviderPayment } from "../_shared/payments/payment_provider.ts";

/** The payment after a capture where it needed one; its status says whether it is captured. */
export async function capturedPayment(
  provider: PaymentProvider,
  paymentId: string,
): Promise<ProviderPayment> {
  const payment = await provider.fetchPayment(paymentId);
  if (payment.status !== "authorized") return payment;
  try {
    return await provider.capturePayment(payment.id, {
      amountMinor: payment.amountMinor,
      currency: payment.currency,
    });
  } catch (error) {
    if (!(error instanceof OrderError) || error.code !== "PAYMENT_PROVIDER_ERROR") throw error;
    const again = await provider.fetchPayment(paymentId).catch(() => null);
    if (again?.status === "captured") return again;
    throw error;
  }
}
