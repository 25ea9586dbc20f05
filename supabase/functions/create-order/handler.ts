/**
 * POST /create-order, as the contract's steps: read the body, parse, price, name the signed-in buyer (if
 * any), create, queue the e-mails, respond. The shared frame (`serveFunction`) does the method, key, limits, errors and the log line.
 */
import { signedInBuyerId, type UserTokenVerifier } from "../_shared/auth/signed_in_buyer.ts";
import type { Config } from "../_shared/config.ts";
import type { OutboxEmail } from "../_shared/email/order_email.ts";
import { clientIp } from "../_shared/http/client_ip.ts";
import { hashBody, readIdempotencyKey } from "../_shared/http/idempotency.ts";
import { describeError, type Logger } from "../_shared/http/log.ts";
import { parseJson } from "../_shared/http/request_body.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import { priceOrder } from "../_shared/orders/money.ts";
import type { CreateOrderPayload, OrderStore } from "../_shared/orders/order_store.ts";
import { withSubmittedPrices } from "./price_mismatch.ts";
import { parseCreateOrderRequest } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own clock, store and e-mail sender. */
export interface CreateOrderDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "rateLimits" | "databaseTimeoutMs">;
  clock: () => Date;
  orders: OrderStore;
  /** Verifies a signed-in buyer's JWT (supabase-js `auth.getClaims`); an unverified one is a guest order. */
  verifyUserToken: UserTokenVerifier;
  /** Sends an order's claimed e-mails; runs after the response, inside `waitUntil`. */
  sendOrderEmails: (emails: OutboxEmail[]) => Promise<void>;
  /** Keeps background work alive after the response (EdgeRuntime.waitUntil on Supabase). */
  waitUntil: (work: Promise<unknown>) => void;
  log: Logger;
  newRequestId?: () => string;
}

/** Builds the create-order handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function createOrderHandler(deps: CreateOrderDependencies) {
  return serveFunction({
    name: "create_order",
    methods: ["POST"],
    access: "project",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _createOrder(context, deps),
  });
}

async function _createOrder(context: RequestContext, deps: CreateOrderDependencies): Promise<JsonReply> {
  const { request } = context;
  const { rateLimits } = deps.config;
  const idempotencyKey = readIdempotencyKey(request.headers);
  const bodyText = await context.readBody();
  const order = parseCreateOrderRequest(parseJson(bodyText));
  // no limit on the amounts here: the catalogue is consulted first (a 404 or PRICE_MISMATCH wins), then
  // create_order decides whether the catalogue's total fits
  const amounts = priceOrder(order.items, order.paymentMethod, order.gatewayMethod);
  // whose order it is: the project key admitted the request, a user JWT beside it only names the buyer
  const buyerUserId = await signedInBuyerId(request.headers, deps.config.apiKeys, deps.verifyUserToken);
  context.annotate({ buyer: buyerUserId ? "signed_in" : "guest" });

  // the database step's clock starts now: the order's time, and its deadline however long the call queues
  const orderedAt = deps.clock();
  const deadline = new Date(orderedAt.getTime() + deps.config.databaseTimeoutMs);
  const payload: CreateOrderPayload = {
    storeId: order.storeId,
    orderedAt: orderedAt.toISOString(),
    buyer: { email: order.buyerEmail, name: order.buyerName, phone: order.buyerPhone },
    shippingAddress: order.shippingAddress,
    paymentMethod: order.paymentMethod,
    gatewayMethod: order.gatewayMethod,
    paymentProofUrl: order.paymentProofUrl,
    clientIp: clientIp(request.headers, context.info),
    buyerUserId,
    items: order.items.map(({ productId, variantId, quantity, unitPriceMinor }) => ({
      productId,
      variantId,
      quantity,
      unitPriceMinor,
    })),
    ...amounts,
    idempotency: idempotencyKey ? { key: idempotencyKey, requestHash: await hashBody(bodyText) } : null,
    rateLimits: {
      ipLimit: rateLimits.perIp.limit,
      ipWindowSeconds: rateLimits.perIp.windowSeconds,
      emailLimit: rateLimits.perEmail.limit,
      emailWindowSeconds: rateLimits.perEmail.windowSeconds,
    },
  };
  const result = await deps.orders.createOrder(payload, { deadline }).catch((error) => {
    throw withSubmittedPrices(error, order.items);
  });
  const { orderId, orderNumber, totalAmount, checkoutFee, finalAmount, status } = result.response;
  context.annotate({ orderId });

  if (result.emails.length > 0) {
    deps.waitUntil(
      deps.sendOrderEmails(result.emails).catch((error) =>
        deps.log({
          event: "order_emails_failed",
          requestId: context.requestId,
          orderId,
          ...describeError(error),
        })
      ),
    );
  }
  return {
    status: 200,
    // rebuilt in the contract's field order: the database's jsonb keeps keys in its own order
    body: { success: true, orderId, orderNumber, totalAmount, checkoutFee, finalAmount, status },
    headers: result.replayed ? { "Idempotent-Replayed": "true" } : {},
  };
}
