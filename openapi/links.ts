/**
 * The calls an answer leads to, as OpenAPI links on the answering operation's 200: a client (or a
 * tester following links) takes the order's id from create-order's answer to start its payment and to
 * show it. A link is written only while the document describes the operation it leads to, found by path
 * (start-payment comes with the payments work).
 */

/** One follow-up call. */
export interface FollowUp {
  /** The operationId whose 200 leads on. */
  from: string;
  /** The link's name in that 200's `links`. */
  name: string;
  /** The path of the operation it leads to. */
  to: string;
  description: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, string>;
}

/** Every follow-up of the API. */
export const FOLLOW_UPS: FollowUp[] = [
  {
    from: "createOrder",
    name: "startPayment",
    to: "/start-payment",
    description: "A gateway order is paid through start-payment, then Razorpay Checkout: send its orderId",
    requestBody: { orderId: "$response.body#/orderId" },
  },
  {
    from: "createOrder",
    name: "trackOrder",
    to: "/track-order",
    description: "The order as its buyer sees it: `order` is its id; `token` comes from the tracking link " +
      "of the buyer's e-mail, never from this answer",
    parameters: { order: "$response.body#/orderId" },
  },
];
