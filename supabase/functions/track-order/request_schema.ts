/**
 * The tracking link's query: `?order=<orderId>&token=<token>`. Anything else in the query (a storefront's
 * own parameters) is ignored; a missing or malformed order id is no order.
 */

/** What the tracking link names: the order (lower case) and the token that lets the holder see it. */
export interface TrackOrderQuery {
  orderId: string;
  token: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The order and token of a tracking link's query, or null when it names no order. */
export function parseTrackOrderQuery(params: URLSearchParams): TrackOrderQuery | null {
  const orderId = params.get("order");
  if (!orderId || !UUID.test(orderId)) return null;
  return { orderId: orderId.toLowerCase(), token: params.get("token") };
}
