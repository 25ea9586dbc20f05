/**
 * `startPayment(supabase, { orderId })` and `verifyPayment(supabase, body)`: the payment functions through
 * supabase-js `functions.invoke`, each answer as a value, failures typed by code as `createOrder`'s are.
 * Both are safe to call again: start-payment answers the same Razorpay order, verify-payment the same
 * decision.
 */
import { callFunction, type FunctionsInvoker } from "./function_call.ts";
import type { ClientErrorCode, ErrorDetails } from "./order_types.ts";
import {
  START_PAYMENT_ERROR_CODES,
  type StartedPayment,
  type StartPaymentBody,
  type StartPaymentErrorCode,
  type VerifiedPayment,
  VERIFY_PAYMENT_ERROR_CODES,
  type VerifyPaymentBody,
  type VerifyPaymentErrorCode,
} from "./payment_types.ts";

/** A failure of code `C`: nothing was kept or stored, except perhaps for NETWORK_ERROR. */
export interface PaymentFailed<C extends string> {
  ok: false;
  /** The HTTP status; 0 for NETWORK_ERROR. */
  status: number;
  code: C;
  /** For developers and logs, not for buyers. */
  message: string;
  details: ErrorDetails<C>;
  /** Seconds to wait, from Retry-After (RATE_LIMITED); null without one. */
  retryAfter: number | null;
  requestId: string | null;
}

/** Any failure of a function whose codes are `C`, discriminated by `code`. */
export type PaymentFailure<C extends string> = {
  [K in C | ClientErrorCode]: PaymentFailed<K>;
}[C | ClientErrorCode];

/** What {@linkcode startPayment} resolves to. */
export type StartPaymentResult =
  | { ok: true; payment: StartedPayment; requestId: string | null }
  | PaymentFailure<StartPaymentErrorCode>;

/** What {@linkcode verifyPayment} resolves to. */
export type VerifyPaymentResult =
  | { ok: true; verification: VerifiedPayment; requestId: string | null }
  | PaymentFailure<VerifyPaymentErrorCode>;

const _START_CODES: ReadonlySet<string> = new Set(START_PAYMENT_ERROR_CODES);
const _VERIFY_CODES: ReadonlySet<string> = new Set(VERIFY_PAYMENT_ERROR_CODES);

/**
 * Opens the Razorpay payment of a gateway order awaiting it: what Razorpay Checkout opens with (the same
 * Razorpay order on every call). Rejects with a TypeError only without a supabase client.
 */
export async function startPayment(
  supabase: FunctionsInvoker,
  body: StartPaymentBody,
  options: { signal?: AbortSignal } = {},
): Promise<StartPaymentResult> {
  _requireClient(supabase, "startPayment");
  const result = await callFunction(supabase, "start-payment", { orderId: body.orderId }, {
    signal: options.signal,
    knownCodes: _START_CODES,
    isSuccess: (data): data is StartedPayment =>
      (data as Partial<StartedPayment> | null)?.success === true &&
      typeof (data as StartedPayment).providerOrderId === "string" &&
      typeof (data as StartedPayment).amount === "number",
  });
  if (!result.ok) return result as PaymentFailure<StartPaymentErrorCode>;
  return { ok: true, payment: result.data, requestId: result.requestId };
}

/**
 * Sends what Razorpay Checkout's `handler` received, for the service to verify and decide (as the webhook
 * would). Rejects with a TypeError only without a supabase client.
 */
export async function verifyPayment(
  supabase: FunctionsInvoker,
  body: VerifyPaymentBody,
  options: { signal?: AbortSignal } = {},
): Promise<VerifyPaymentResult> {
  _requireClient(supabase, "verifyPayment");
  const { orderId, razorpayOrderId, razorpayPaymentId, razorpaySignature } = body;
  const result = await callFunction(
    supabase,
    "verify-payment",
    { orderId, razorpayOrderId, razorpayPaymentId, razorpaySignature },
    {
      signal: options.signal,
      knownCodes: _VERIFY_CODES,
      isSuccess: (data): data is VerifiedPayment =>
        (data as Partial<VerifiedPayment> | null)?.success === true &&
        typeof (data as VerifiedPayment).outcome === "string" &&
        typeof (data as VerifiedPayment).status === "string",
    },
  );
  if (!result.ok) return result as PaymentFailure<VerifyPaymentErrorCode>;
  return { ok: true, verification: result.data, requestId: result.requestId };
}

function _requireClient(supabase: FunctionsInvoker, name: string): void {
  if (typeof supabase?.functions?.invoke !== "function") {
    throw new TypeError(`${name}: the first argument must be a supabase-js client (createClient(url, key))`);
  }
}
