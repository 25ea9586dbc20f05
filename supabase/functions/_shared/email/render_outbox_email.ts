/** Renders any outbox row by its kind: an order's buyer and seller e-mails, or a buyer's status e-mail. Pure. */
import { type EmailMessage, type RenderOptions, renderOrderEmail } from "./email_templates.ts";
import { isStatusEmail, type OutboxEmail } from "./order_email.ts";
import { renderStatusEmail } from "./status_email_templates.ts";

/**
 * Whether a row's e-mail carries the order's tracking link: the buyer's, never the seller's alert. A
 * sender computes the tracking token only for these.
 */
export function showsTrackingLink(email: Pick<OutboxEmail, "kind">): boolean {
  return email.kind !== "seller";
}

/** The message of one claimed outbox row. */
export function renderOutboxEmail(email: OutboxEmail, options: RenderOptions): EmailMessage {
  return isStatusEmail(email) ? renderStatusEmail(email, options) : renderOrderEmail(email, options);
}
