/**
 * The payment provider port: what start-payment, verify-payment and the drain's refunds ask of a gateway,
 * in our types. Amounts in minor units (paise), as the gateway's API takes them. The Razorpay
 * adapter (`razorpay_api.ts`) implements it over HTTP; every failure, an error answer or silence past the
 * call's timeout, is an OrderError PAYMENT_PROVIDER_ERROR (502) whose cause says what happened.
 */

/** A provider order: one per order of ours, what Checkout is opened with. */
export interface ProviderOrder {
  id: string;
  amountMinor: number;
  currency: string;
  /** Our reference, the order number. */
  receipt: string | null;
  /** `created`, `attempted` or `paid`. */
  status: string;
}

/** A payment as the provider reports it. */
export interface ProviderPayment {
  id: string;
  /** The provider order it paid, when it had one. */
  orderId: string | null;
  amountMinor: number;
  currency: string;
  /** `created`, `authorized`, `captured`, `refunded` or `failed`. */
  status: string;
  /** How the buyer paid (Razorpay: `card`, `upi`, `wallet`, `netbanking`, `emi`, ...); null when not said. */
  method: string | null;
}

/** A refund of a payment, as the provider reports it. */
export interface ProviderRefund {
  id: string;
  paymentId: string;
  amountMinor: number;
  currency: string;
  /** Our reference: the id of our refund row, so a retry can find a refund it made before. */
  receipt: string | null;
  /** `pending`, `processed` or `failed`. */
  status: string;
}

/** What a provider order is created with. */
export interface NewProviderOrder {
  amountMinor: number;
  currency: string;
  receipt: string;
  notes: Record<string, string>;
}

/** What a refund is created with; `speed` is Razorpay's (`normal`: 5–7 working days, no extra fee). */
export interface NewProviderRefund {
  amountMinor: number;
  receipt: string;
  notes: Record<string, string>;
  speed: "normal";
}

/** How long one call may take: less than the adapter's own limit when a run's budget is nearly spent. */
export interface CallOptions {
  timeoutMs?: number;
}

/**
 * What a provider's failed call says about the provider: `refused` when it answered and refused this one
 * request (the request's own fault, e.g. a refund of a payment refunded already), so its other requests may
 * still succeed; otherwise it failed or was silent (down, overloaded, our keys refused).
 */
export interface ProviderFailure {
  readonly refused: boolean;
}

/**
 * Whether `error`, as a provider's method threw it, is the provider's refusal of that one request
 * ({@linkcode ProviderFailure}, carried as the OrderError's cause); false for anything else.
 */
export function isProviderRefusal(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  return typeof cause === "object" && cause !== null && (cause as Partial<ProviderFailure>).refused === true;
}

/**
 * A payment gateway's API. Every method throws OrderError PAYMENT_PROVIDER_ERROR on failure, its cause a
 * {@linkcode ProviderFailure}.
 */
export interface PaymentProvider {
  /** The provider's name, as payments are recorded under it (`razorpay`). */
  readonly name: string;
  /** The public key id Checkout is opened with. */
  readonly keyId: string;
  /**
   * Whether `signature` is the provider's for `paymentId` of `orderId`, as Checkout's handler received it
   * (constant time; no call to the provider).
   */
  verifyCheckoutSignature(orderId: string, paymentId: string, signature: string): Promise<boolean>;
  createOrder(order: NewProviderOrder): Promise<ProviderOrder>;
  fetchOrder(orderId: string): Promise<ProviderOrder>;
  fetchPayment(paymentId: string): Promise<ProviderPayment>;
  /** Moves an `authorized` payment to `captured`. */
  capturePayment(
    paymentId: string,
    amount: { amountMinor: number; currency: string },
  ): Promise<ProviderPayment>;
  /** The payment's refunds (up to 100, the most Razorpay lists in one page). */
  listRefunds(paymentId: string, options?: CallOptions): Promise<ProviderRefund[]>;
  createRefund(paymentId: string, refund: NewProviderRefund, options?: CallOptions): Promise<ProviderRefund>;
  fetchRefund(paymentId: string, refundId: string): Promise<ProviderRefund>;
}
