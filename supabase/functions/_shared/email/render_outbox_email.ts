/**
 * Renders any outbox row by its kind: an order's buyer and seller e-mails, a buyer's status e-mail, the
 * seller's "payment received", or the buyer's refund e-mail. Pure.
 */
import { type EmailMessage, type RenderOptions, renderOrderEmail } from "./email_templates.ts";
import { isOrderEmail, isStatusEmail, type OutboxEmail } from "./order_email.ts";
import { renderRefundEmail } from "./refund_email.ts";
import { renderSellerPaidEmail } from "./seller_paid_email.ts";
import { renderStatusEmail } from "./status_email_templates.ts";

/**
 * Whether a row's e-mail carries the order's tracking link: the buyer's, never the seller's. A sender
 * computes the tracking token only for these.
 */
export function showsTrackingLink(email: Pick<OutboxEmail, "kind">): boolean {
  return email.kind !== "seller" && email.kind !== "seller_paid";
}

/** The message of one claimed outbox row. */
export function renderOutboxEmail(email: OutboxEmail, options: RenderOptions): EmailMessage {
  if (isStatusEmail(email)) return renderStatusEmail(email, options);
  if (isOrderEmail(email)) return renderOrderEmail(email, options);
  return email.kind === "seller_paid"
    ? renderSellerPaidEmail(email, options)
    : renderRefundEmail(email, options);
}
