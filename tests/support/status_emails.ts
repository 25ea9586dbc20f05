/** Builders of the buyer's status e-mails for template tests: the seed-like order of order_emails.ts, moved. */
import type {
  EmailedStatus,
  StatusEmailData,
  StatusOutboxEmail,
} from "../../supabase/functions/_shared/email/order_email.ts";
import { orderEmailData } from "./order_emails.ts";

/** The snapshot move_order_status stores when the order of `orderEmailData()` moves to `status`. */
export function statusEmailData(
  status: EmailedStatus,
  overrides: Partial<StatusEmailData> = {},
): StatusEmailData {
  const order = orderEmailData();
  return {
    orderId: order.orderId,
    orderNumber: order.orderNumber,
    createdAt: order.createdAt,
    currency: order.currency,
    status,
    previousStatus:
      { paid: "payment_pending", shipped: "processing", delivered: "shipped", cancelled: "paid" }[
        status
      ],
    changedAt: "2026-11-24T11:00:00.000Z",
    store: order.store,
    paymentMethod: "gateway",
    gatewayMethod: "upi",
    items: order.items,
    totalMinor: 99_700,
    feeMinor: 1_994,
    finalMinor: 101_694,
    note: null,
    carrier: null,
    trackingNumber: null,
    trackingUrl: null,
    // paid through the gateway before each of these moves (the cancelled one leaves `paid`)
    paidBy: "payment_gateway",
    recordedPayments: { count: 1, amountMinor: 101_694 },
    ...overrides,
  };
}

/** The outbox row of the status e-mail for `data`, to the buyer, replies to the store. */
export function statusOutboxEmail(data: StatusEmailData): StatusOutboxEmail {
  return {
    id: crypto.randomUUID(),
    orderId: data.orderId,
    kind: `status_${data.status}`,
    to: "asha@example.com",
    replyTo: data.store.ownerEmail,
    attempts: 0,
    claimToken: crypto.randomUUID(),
    payload: data,
  };
}
