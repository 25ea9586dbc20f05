/**
 * The payment functions as a storefront sends and receives them: start-payment (what Razorpay Checkout opens
 * with) and verify-payment (what Checkout's `handler` received). Plain TypeScript with no imports but the
 * order types; tests/client_types_test.ts holds these types to the functions' own schemas.
 */
import type { ErrorCode, GatewayMethod, OrderStatus } from "./order_types.ts";

/** The body of POST /functions/v1/start-payment. */
export interface StartPaymentBody {
  orderId: string;
}

/** start-payment's 200: open Razorpay Checkout with these. No buyer data. */
export interface StartedPayment {
  success: true;
  orderId: string;
  orderNumber: string;
  provider: "razorpay";
  /** Checkout's `key`: the public key id (`rzp_test_…`, `rzp_live_…`; `rzp_local_…` on the local stack). */
  keyId: string;
  /** Checkout's `order_id`: the one Razorpay order kept for this order. */
  providerOrderId: string;
  /** Checkout's `amount`, in paise (minor units): the order's finalAmount × 100. */
  amount: number;
  currency: string;
  /** The method the order was priced with: offer Checkout only this one (`config.display`). */
  method: GatewayMethod;
  /** Checkout's `name`. */
  storeName: string;
}

/** The body of POST /functions/v1/verify-payment: the order's id and Checkout's handler response. */
export interface VerifyPaymentBody {
  orderId: string;
  /** response.razorpay_order_id */
  razorpayOrderId: string;
  /** response.razorpay_payment_id */
  razorpayPaymentId: string;
  /** response.razorpay_signature */
  razorpaySignature: string;
}

/** What the ledger decided about a payment (payment-webhook's table in docs/integrate.md). */
export type PaymentOutcome =
  | "paid"
  | "already_paid"
  | "already_recorded"
  | "duplicate_payment"
  | "order_cancelled"
  | "method_mismatch"
  | "amount_mismatch"
  | "currency_mismatch"
  | "not_payable"
  | "order_not_found";

/** verify-payment's 200: the payment was decided; `status` is the order's now (`paid` when it paid it). */
export interface VerifiedPayment {
  success: true;
  orderId: string;
  orderNumber: string;
  status: OrderStatus;
  outcome: PaymentOutcome;
}

/** The codes start-payment answers. */
export const START_PAYMENT_ERROR_CODES = [
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "REQUEST_TIMEOUT",
  "PAYLOAD_TOO_LARGE",
  "INTERNAL_ERROR",
  "UNAUTHORIZED",
  "ORDER_NOT_FOUND",
  "RATE_LIMITED",
  "PAYMENT_PROVIDER_ERROR",
  "PAYMENT_PROVIDER_NOT_CONFIGURED",
  "ORDER_NOT_PAYABLE",
] as const satisfies readonly ErrorCode[];

/** An error code start-payment answers. */
export type StartPaymentErrorCode = typeof START_PAYMENT_ERROR_CODES[number];

/** The codes verify-payment answers. */
export const VERIFY_PAYMENT_ERROR_CODES = [
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "REQUEST_TIMEOUT",
  "PAYLOAD_TOO_LARGE",
  "INTERNAL_ERROR",
  "UNAUTHORIZED",
  "ORDER_NOT_FOUND",
  "RATE_LIMITED",
  "PAYMENT_PROVIDER_ERROR",
  "PAYMENT_PROVIDER_NOT_CONFIGURED",
  "PAYMENT_SIGNATURE_INVALID",
  "PAYMENT_ORDER_MISMATCH",
  "PAYMENT_NOT_CAPTURED",
] as const satisfies readonly ErrorCode[];

/** An error code verify-payment answers. */
export type VerifyPaymentErrorCode = typeof VERIFY_PAYMENT_ERROR_CODES[number];
