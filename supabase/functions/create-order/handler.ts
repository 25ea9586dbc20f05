/**
 * POST /create-order, as the contract's steps: method, key, body with a limit, parse, price, create,
 * queue the e-mails, respond. One catch at the end hands any failure to the error renderer.
 */
import { requireApiKey } from "../_shared/http/auth.ts";
import type { Config } from "../_shared/config.ts";
import { corsOriginHeaders, corsPreflightHeaders } from "../_shared/http/cors.ts";
import { OrderError } from "../_shared/errors.ts";
import { renderError } from "../_shared/http/http_errors.ts";
import { hashBody, readIdempotencyKey } from "../_shared/http/idempotency.ts";
import { describeError, type Logger } from "../_shared/http/log.ts";
import { priceOrder } from "../_shared/orders/money.ts";
import type { OutboxEmail } from "../_shared/email/order_email.ts";
import type { CreateOrderPayload, OrderStore } from "../_shared/orders/order_store.ts";
import { parseJson, readBodyText } from "../_shared/http/request_body.ts";
import { assertAmountFits, parseCreateOrderRequest } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own clock, store and e-mail sender. */
export interface CreateOrderDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "rateLimits">;
  clock: () => Date;
  orders: OrderStore;
  /** Sends an order's claimed e-mails; runs after the response, inside `waitUntil`. */
  sendOrderEmails: (emails: OutboxEmail[]) => Promise<void>;
  /** Keeps background work alive after the response (EdgeRuntime.waitUntil on Supabase). */
  waitUntil: (work: Promise<unknown>) => void;
  log: Logger;
  newRequestId?: () => string;
}

/** Where the request came from, as Deno.serve reports it. */
export interface ConnectionInfo {
  remoteAddr?: { hostname?: string };
}

function _json(
  status: number,
  body: unknown,
  headers: Record<string, string>,
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
  });
}

/** The caller's IP for rate limiting: the proxy's view of the client, else the socket's peer. */
export function clientIp(
  headers: Headers,
  info?: ConnectionInfo,
): string | null {
  const forwarded = headers.get("cf-connecting-ip") ??
    headers.get("x-real-ip") ??
    headers.get("x-forwarded-for")?.split(",")[0];
  return forwarded?.trim().slice(0, 64) || info?.remoteAddr?.hostname || null;
}

/** Builds the create-order handler: a plain `(Request) => Promise<Response>`. */
export function createOrderHandler(deps: CreateOrderDependencies) {
  const { config, orders, log } = deps;
  const newRequestId = deps.newRequestId ?? (() => crypto.randomUUID());

  return async function handleCreateOrder(
    request: Request,
    info?: ConnectionInfo,
  ): Promise<Response> {
    const started = performance.now();
    const requestId = newRequestId();
    const origin = request.headers.get("origin");
    const baseHeaders = {
      ...corsOriginHeaders(origin, config.allowedOrigins),
      "x-request-id": requestId,
    };
    let orderId: string | undefined;
    let response: Response;
    let failure: { code: string; cause: unknown } | undefined;

    try {
      if (request.method === "OPTIONS") {
        response = new Response(null, {
          status: 204,
          headers: {
            ...corsPreflightHeaders(origin, config.allowedOrigins),
            "x-request-id": requestId,
          },
        });
      } else {
        if (request.method !== "POST") {
          throw new OrderError("METHOD_NOT_ALLOWED", "Only POST is allowed", {
            headers: { Allow: "POST, OPTIONS" },
          });
        }
        requireApiKey(request.headers, config.apiKeys);
        const idempotencyKey = readIdempotencyKey(request.headers);
        const bodyText = await readBodyText(request);
        const order = parseCreateOrderRequest(parseJson(bodyText));
        const amounts = priceOrder(
          order.items,
          order.paymentMethod,
          order.gatewayMethod,
        );
        assertAmountFits(amounts.finalMinor);

        const payload: CreateOrderPayload = {
          storeId: order.storeId,
          orderedAt: deps.clock().toISOString(),
          buyer: {
            email: order.buyerEmail,
            name: order.buyerName,
            phone: order.buyerPhone,
          },
          shippingAddress: order.shippingAddress,
          paymentMethod: order.paymentMethod,
          gatewayMethod: order.gatewayMethod,
          paymentProofUrl: order.paymentProofUrl,
          clientIp: clientIp(request.headers, info),
          items: order.items,
          ...amounts,
          idempotency: idempotencyKey ? { key: idempotencyKey, requestHash: await hashBody(bodyText) } : null,
          rateLimits: {
            ipLimit: config.rateLimits.perIp.limit,
            ipWindowSeconds: config.rateLimits.perIp.windowSeconds,
            emailLimit: config.rateLimits.perEmail.limit,
            emailWindowSeconds: config.rateLimits.perEmail.windowSeconds,
          },
        };
        const result = await orders.createOrder(payload);
        orderId = result.response.orderId;

        if (result.emails.length > 0) {
          deps.waitUntil(
            deps.sendOrderEmails(result.emails).catch((error) =>
              log({
                event: "order_emails_failed",
                requestId,
                orderId,
                ...describeError(error),
              })
            ),
          );
        }
        const { orderNumber, totalAmount, checkoutFee, finalAmount, status } = result.response;
        // rebuilt in the contract's field order: the database's jsonb keeps keys in its own order
        const body = {
          success: true,
          orderId,
          orderNumber,
          totalAmount,
          checkoutFee,
          finalAmount,
          status,
        };
        response = _json(200, body, {
          ...baseHeaders,
          ...(result.replayed ? { "Idempotent-Replayed": "true" } : {}),
        });
      }
    } catch (error) {
      const rendered = renderError(error);
      failure = { code: rendered.body.error.code, cause: error };
      response = _json(rendered.status, rendered.body, {
        ...baseHeaders,
        ...rendered.headers,
      });
    }

    log({
      event: "create_order",
      requestId,
      method: request.method,
      status: response.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(orderId ? { orderId } : {}),
      ...(failure ? { code: failure.code } : {}),
      ...(failure && response.status >= 500 ? describeError(failure.cause) : {}),
    });
    return response;
  };
}
