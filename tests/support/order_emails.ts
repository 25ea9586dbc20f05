/** Builders of outbox e-mails for template and sender tests: a realistic order, overridable in parts. */
import type { OrderEmailData, OrderOutboxEmail } from "../../supabase/functions/_shared/email/order_email.ts";

/** A two-item upi_direct order of the seed store, as create_order snapshots it. */
export function orderEmailData(overrides: Partial<OrderEmailData> = {}): OrderEmailData {
  return {
    orderId: "0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77",
    orderNumber: "ORD-2026-000042",
    createdAt: "2026-11-22T09:30:00.000Z",
    currency: "INR",
    status: "payment_pending",
    store: { name: "Chai & Co.", ownerEmail: "owner@example.com" },
    buyer: { name: "Asha Rao", email: "asha@example.com", phone: "+919876543210" },
    shippingAddress: {
      line1: "12 MG Road",
      line2: "Flat 4B",
      city: "Bengaluru",
      state: "Karnataka",
      postalCode: "560001",
      country: "IN",
    },
    paymentMethod: "upi_direct",
    gatewayMethod: null,
    paymentProofUrl: "https://proofs.example.com/upi/7781.png",
    items: [
      {
        productName: "Assam Tea 250 g",
        variantName: null,
        quantity: 2,
        unitPriceMinor: 34900,
        lineTotalMinor: 69800,
      },
      {
        productName: "Steel Tumbler",
        variantName: "Large 400 ml",
        quantity: 1,
        unitPriceMinor: 29900,
        lineTotalMinor: 29900,
      },
    ],
    totalMinor: 99700,
    feeMinor: 0,
    finalMinor: 99700,
    ...overrides,
  };
}

/** The outbox row of one kind for `data`, with the recipients create_order gives it. */
export function outboxEmail(
  kind: "buyer" | "seller",
  data: OrderEmailData = orderEmailData(),
  overrides: Partial<OrderOutboxEmail> = {},
): OrderOutboxEmail {
  return {
    id: crypto.randomUUID(),
    orderId: data.orderId,
    kind,
    to: kind === "buyer" ? data.buyer.email : data.store.ownerEmail,
    replyTo: kind === "buyer" ? data.store.ownerEmail : data.buyer.email,
    attempts: 0,
    claimToken: crypto.randomUUID(),
    payload: data,
    ...overrides,
  };
}
