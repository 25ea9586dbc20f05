/**
 * GET /track-order?order=<orderId>&token=<token>: what a guest buyer's tracking link shows. A buyer's
 * browser holds no key, so the frame checks none (`access: "none"`); the token is the key: the HMAC of the
 * order id with ORDER_TRACKING_SECRET, checked in constant time before the database is asked. A wrong or
 * missing token is the same 404 as an unknown order, so an answer never tells whether an order exists.
 */
import type { Config } from "../_shared/config.ts";
import { OrderError } from "../_shared/errors.ts";
import type { Logger } from "../_shared/http/log.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import type { OrderTracking } from "../_shared/orders/order_tracking.ts";
import { isOrderTrackingToken } from "../_shared/orders/tracking_token.ts";
import { parseTrackOrderQuery } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own tracking port. */
export interface TrackOrderDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "trackingSecret">;
  tracking: OrderTracking;
  log: Logger;
  newRequestId?: () => string;
}

// a tracking answer is one buyer's: no shared cache may keep it
const NO_STORE = { "Cache-Control": "no-store" };

/** The one answer for an unknown order, a wrong token and no token alike. */
function _notFound(): OrderError {
  return new OrderError("ORDER_NOT_FOUND", "No order matches this tracking link", { headers: NO_STORE });
}

/** Builds the track-order handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function trackOrderHandler(deps: TrackOrderDependencies) {
  return serveFunction({
    name: "track_order",
    methods: ["GET"],
    access: "none",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _trackOrder(context, deps),
  });
}

async function _trackOrder(context: RequestContext, deps: TrackOrderDependencies): Promise<JsonReply> {
  const query = parseTrackOrderQuery(new URL(context.request.url).searchParams);
  if (!query || !(await isOrderTrackingToken(deps.config.trackingSecret, query.orderId, query.token))) {
    throw _notFound();
  }
  const order = await deps.tracking.trackOrder(query.orderId);
  if (!order) throw _notFound();
  context.annotate({ orderId: order.orderId });
  return { status: 200, body: { success: true, ...order }, headers: NO_STORE };
}
