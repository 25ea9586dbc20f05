/**
 * POST /start-payment: opens the gateway payment of a `gateway` order that awaits it, as steps: read and
 * parse `{ orderId }`, require the provider's keys (503), count the call and read the order with its kept
 * provider order (404, 409 ORDER_NOT_PAYABLE, also for an amount below Razorpay's minimum), create the provider order unless one is kept (502 when the
 * provider fails: nothing kept), keep it (racing first calls answer the one kept), answer what Checkout
 * opens with. No buyer data in the answer. The shared frame does the method, key, limits, errors and log.
 */
import type { Config } from "../_shared/config.ts";
import { OrderError } from "../_shared/errors.ts";
import { clientIp } from "../_shared/http/client_ip.ts";
import type { Logger } from "../_shared/http/log.ts";
import { parseJson } from "../_shared/http/request_body.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import { requireProvider } from "../_shared/payments/configured_provider.ts";
import { formatMoney } from "../_shared/email/money_format.ts";
import { GATEWAY_MINIMUM_MINOR, isPayable, type PaymentOrders } from "../_shared/payments/payment_orders.ts";
import type { PaymentProvider } from "../_shared/payments/payment_provider.ts";
import { parseStartPaymentRequest } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own clock, ports and provider. */
export interface StartPaymentDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "rateLimits" | "databaseTimeoutMs">;
  clock: () => Date;
  payments: PaymentOrders;
  /** Null when RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET are not set: every call is then 503. */
  provider: PaymentProvider | null;
  log: Logger;
  newRequestId?: () => string;
}

// an answer about one buyer's payment: no shared cache may keep it
const NO_STORE = { "Cache-Control": "no-store" };

/** Builds the start-payment handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function startPaymentHandler(deps: StartPaymentDependencies) {
  return serveFunction({
    name: "start_payment",
    methods: ["POST"],
    access: "project",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _startPayment(context, deps),
  });
}

async function _startPayment(context: RequestContext, deps: StartPaymentDependencies): Promise<JsonReply> {
  const { orderId } = parseStartPaymentRequest(parseJson(await context.readBody()));
  const provider = requireProvider(deps.provider);
  const deadline = () => new Date(deps.clock().getTime() + deps.config.databaseTimeoutMs);

  const start = await deps.payments.beginPayment(orderId, {
    clientIp: clientIp(context.request.headers, context.info),
    rateLimit: deps.config.rateLimits.perIp,
    deadline: deadline(),
  });
  const order = start.order;
  if (!order) throw new OrderError("ORDER_NOT_FOUND", "No order with this orderId", { details: { orderId } });
  context.annotate({ orderId });
  if (!isPayable(order)) {
    throw new OrderError("ORDER_NOT_PAYABLE", "This order does not await a payment through the gateway", {
      details: { status: order.status, paymentMethod: order.paymentMethod },
    });
  }
  if (order.finalAmountMinor < GATEWAY_MINIMUM_MINOR) {
    // Razorpay would refuse the order (a 502 that no retry mends): say so before calling it
    throw new OrderError(
      "ORDER_NOT_PAYABLE",
      `This order's amount is below the smallest the gateway takes (${
        formatMoney(GATEWAY_MINIMUM_MINOR, order.currency)
      })`,
      { details: { status: order.status, paymentMethod: order.paymentMethod } },
    );
  }

  let kept = start.providerOrder;
  if (!kept) {
    const created = await provider.createOrder({
      amountMinor: order.finalAmountMinor,
      currency: order.currency,
      receipt: order.orderNumber,
      notes: { orderId: order.orderId, storeId: order.storeId },
    });
    if (created.amountMinor !== order.finalAmountMinor || created.currency !== order.currency) {
      throw new OrderError("PAYMENT_PROVIDER_ERROR", "The provider's order is not for the order's amount", {
        cause: new Error(
          `${provider.name} order ${created.id} is for ${created.amountMinor} ${created.currency}`,
        ),
      });
    }
    kept = await deps.payments.keepProviderOrder(order.orderId, {
      provider: provider.name,
      providerOrderId: created.id,
      amountMinor: created.amountMinor,
      currency: created.currency,
    }, { deadline: deadline() });
    context.annotate({ providerOrderCreated: created.id === kept.providerOrderId });
  }
  context.annotate({ providerOrderId: kept.providerOrderId });

  return {
    status: 200,
    body: {
      success: true,
      orderId: order.orderId,
      orderNumber: order.orderNumber,
      provider: kept.provider,
      keyId: provider.keyId,
      providerOrderId: kept.providerOrderId,
      amount: kept.amountMinor,
      currency: kept.currency,
      method: order.gatewayMethod,
      storeName: order.storeName,
    },
    headers: NO_STORE,
  };
}
