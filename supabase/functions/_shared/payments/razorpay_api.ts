/**
 * The Razorpay adapter of the payment provider port, after Razorpay's documented API: Basic auth with the
 * key id and secret, JSON bodies, amounts in paise, errors as `{ error: { code, description, ... } }` with a
 * 4xx or 5xx status. Every call gives up after `timeoutMs` (PAYMENT_PROVIDER_TIMEOUT_MS), the answer's body
 * included. An error answer, silence or an answer that is not the documented entity is an OrderError
 * PAYMENT_PROVIDER_ERROR; its cause, a {@linkcode RazorpayApiError}, names the call, the status and
 * Razorpay's code and description for the log (never the keys).
 */
import { z } from "../zod.ts";
import { OrderError } from "../errors.ts";
import { isCheckoutSignature } from "./checkout_signature.ts";
import type {
  CallOptions,
  NewProviderOrder,
  NewProviderRefund,
  PaymentProvider,
  ProviderFailure,
  ProviderOrder,
  ProviderPayment,
  ProviderRefund,
} from "./payment_provider.ts";

/**
 * What went wrong with one call to Razorpay; `status` 0 when no answer came. `refused` for a 4xx answer
 * other than 401 (our keys), 408 (too slow) and 429 (too many requests): Razorpay refused this request,
 * not every request.
 */
export class RazorpayApiError extends Error implements ProviderFailure {
  override name = "RazorpayApiError";
  readonly refused: boolean;
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly code: string,
    description: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${operation}: ${status || "no answer"} ${code}: ${description}`, options);
    this.refused = status >= 400 && status <= 499 && ![401, 408, 429].includes(status);
  }
}

/** The adapter's settings: the keys, the API's base URL (RAZORPAY_API_URL) and each call's time limit. */
export interface RazorpayApiOptions {
  keyId: string;
  keySecret: string;
  baseUrl: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

const _Id = z.string().min(1).max(255);
const _Currency = z.string().regex(/^[A-Za-z]{3}$/).transform((code) => code.toUpperCase());

const _OrderEntity = z.object({
  id: _Id,
  amount: z.int().min(0),
  currency: _Currency,
  receipt: z.string().nullish(),
  status: z.string(),
});

const _PaymentEntity = z.object({
  id: _Id,
  order_id: z.string().nullish(),
  amount: z.int().min(0),
  currency: _Currency,
  status: z.string(),
  method: z.string().nullish(),
});

const _RefundEntity = z.object({
  id: _Id,
  payment_id: _Id,
  amount: z.int().min(0),
  currency: _Currency,
  receipt: z.string().nullish(),
  status: z.string(),
});

const _Collection = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

const _ErrorBody = z.object({
  error: z.object({ code: z.string().optional(), description: z.string().optional() }),
});

function _order(entity: z.infer<typeof _OrderEntity>): ProviderOrder {
  return {
    id: entity.id,
    amountMinor: entity.amount,
    currency: entity.currency,
    receipt: entity.receipt ?? null,
    status: entity.status,
  };
}

function _payment(entity: z.infer<typeof _PaymentEntity>): ProviderPayment {
  return {
    id: entity.id,
    orderId: entity.order_id ?? null,
    amountMinor: entity.amount,
    currency: entity.currency,
    status: entity.status,
    method: entity.method ?? null,
  };
}

function _refund(entity: z.infer<typeof _RefundEntity>): ProviderRefund {
  return {
    id: entity.id,
    paymentId: entity.payment_id,
    amountMinor: entity.amount,
    currency: entity.currency,
    receipt: entity.receipt ?? null,
    status: entity.status,
  };
}

/** The message every PAYMENT_PROVIDER_ERROR carries; the renderer answers its own fixed sentence anyway. */
const _FAILED = "Razorpay answered an error or did not answer in time";

/** Razorpay's API as a {@linkcode PaymentProvider}. */
export function razorpayApi(options: RazorpayApiOptions): PaymentProvider {
  const fetchFn = options.fetch ?? fetch;
  const authorization = `Basic ${_base64(`${options.keyId}:${options.keySecret}`)}`;
  const base = options.baseUrl.replace(/\/+$/, "");

  async function call<T>(
    operation: string,
    method: "GET" | "POST",
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    callOptions: CallOptions = {},
  ): Promise<T> {
    // the adapter's limit, or less for a call late in a run's budget
    const timeoutMs = Math.max(0, Math.min(options.timeoutMs, callOptions.timeoutMs ?? Infinity));
    const signal = AbortSignal.timeout(timeoutMs);
    let status = 0;
    let text: string;
    try {
      const response = await fetchFn(`${base}${path}`, {
        method,
        headers: {
          Authorization: authorization,
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      status = response.status;
      // the body is read under the same time limit: a provider that sends headers and then stalls is silent
      text = await response.text();
    } catch (error) {
      const silent = signal.aborted;
      throw _failure(
        new RazorpayApiError(
          operation,
          status,
          silent ? "TIMEOUT" : "NETWORK_ERROR",
          silent ? `no answer within ${timeoutMs} ms` : "the request failed",
          { cause: error },
        ),
      );
    }
    const json = _json(text);
    if (status < 200 || status > 299) {
      const error = _ErrorBody.safeParse(json);
      throw _failure(
        new RazorpayApiError(
          operation,
          status,
          error.success ? error.data.error.code ?? "ERROR" : "ERROR",
          error.success
            ? (error.data.error.description ?? "").slice(0, 300)
            : "an answer without an error body",
        ),
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw _failure(
        new RazorpayApiError(
          operation,
          status,
          "UNEXPECTED_ANSWER",
          "the answer is not the documented entity",
        ),
      );
    }
    return parsed.data;
  }

  const _path = (id: string) => encodeURIComponent(id);

  return {
    name: "razorpay",
    keyId: options.keyId,
    verifyCheckoutSignature: (orderId, paymentId, signature) =>
      isCheckoutSignature(orderId, paymentId, signature, options.keySecret),
    async createOrder(order: NewProviderOrder) {
      return _order(
        await call("orders.create", "POST", "/v1/orders", _OrderEntity, {
          amount: order.amountMinor,
          currency: order.currency,
          receipt: order.receipt,
          notes: order.notes,
        }),
      );
    },
    async fetchOrder(orderId: string) {
      return _order(await call("orders.fetch", "GET", `/v1/orders/${_path(orderId)}`, _OrderEntity));
    },
    async fetchPayment(paymentId: string) {
      return _payment(
        await call("payments.fetch", "GET", `/v1/payments/${_path(paymentId)}`, _PaymentEntity),
      );
    },
    async capturePayment(paymentId, { amountMinor, currency }) {
      return _payment(
        await call("payments.capture", "POST", `/v1/payments/${_path(paymentId)}/capture`, _PaymentEntity, {
          amount: amountMinor,
          currency,
        }),
      );
    },
    async listRefunds(paymentId: string, callOptions?: CallOptions) {
      const page = await call(
        "refunds.list",
        "GET",
        `/v1/payments/${_path(paymentId)}/refunds?count=100`,
        _Collection(_RefundEntity),
        undefined,
        callOptions,
      );
      return page.items.map(_refund);
    },
    async createRefund(paymentId: string, refund: NewProviderRefund, callOptions?: CallOptions) {
      return _refund(
        await call("refunds.create", "POST", `/v1/payments/${_path(paymentId)}/refund`, _RefundEntity, {
          amount: refund.amountMinor,
          speed: refund.speed,
          receipt: refund.receipt,
          notes: refund.notes,
        }, callOptions),
      );
    },
    async fetchRefund(paymentId: string, refundId: string) {
      return _refund(
        await call(
          "refunds.fetch",
          "GET",
          `/v1/payments/${_path(paymentId)}/refunds/${_path(refundId)}`,
          _RefundEntity,
        ),
      );
    },
  };
}

function _failure(cause: RazorpayApiError): OrderError {
  return new OrderError("PAYMENT_PROVIDER_ERROR", _FAILED, { cause });
}

function _json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function _base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
