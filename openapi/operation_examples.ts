/**
 * Example requests and answers of each operation, by operationId, for openapi.json: named examples of
 * its request body (or parameters) and of its 200, and its own example of an error code where the
 * code's common one (`error_examples.ts`) is not what it answers. The create-order requests use the
 * seed's catalogue, so they are orders the local stack accepts (tests/openapi_sampling_test.ts sends them).
 */
import type { ErrorCode } from "../supabase/functions/_shared/errors.ts";
import { type ErrorExample, EXAMPLE_IDS } from "./error_examples.ts";

/** A named example of OpenAPI's Example Object. */
export interface Example {
  summary: string;
  value: unknown;
}

/** One operation's examples. */
export interface OperationExamples {
  request?: Record<string, Example>;
  /** Examples of query parameters, by parameter name. */
  parameters?: Record<string, unknown>;
  success: Record<string, Example>;
  errors?: Partial<Record<ErrorCode, ErrorExample>>;
}

const BUYER = {
  storeId: EXAMPLE_IDS.store,
  buyerEmail: "asha@example.com",
  buyerName: "Asha Rao",
  buyerPhone: "+91 98765 43210",
  shippingAddress: {
    line1: "12 MG Road",
    line2: "Flat 4B",
    city: "Pune",
    state: "Maharashtra",
    postalCode: "411001",
    country: "IN",
  },
};

const _SERVICE_KEY_REQUIRED: ErrorExample = {
  summary: "No service-role or secret key",
  message: "A service or secret key is required: Authorization: Bearer <key> or apikey: <key>",
};

const SHIPPED_ORDER = { orderId: EXAMPLE_IDS.order, orderNumber: "ORD-2026-000042" };

/**
 * track-order's answer for a shipped gateway (UPI) order, with instants as the database writes them: the
 * document's example, and the order tests' (tests/tracking_page_test.ts) shipped order. Its last step,
 * 18:45 UTC on the 26th, is past midnight in India.
 */
export const SHIPPED_ORDER_ANSWER = {
  success: true,
  ...SHIPPED_ORDER,
  status: "shipped",
  createdAt: "2026-11-25T16:23:39.123+00:00",
  storeName: "Chai & Co.",
  timeZone: "Asia/Kolkata",
  currency: "INR",
  paymentMethod: "gateway",
  gatewayMethod: "upi",
  items: [
    { productName: "Assam Tea 250 g", variantName: null, quantity: 2, unitPrice: 349, lineTotal: 698 },
    {
      productName: "Steel Tumbler",
      variantName: "Large 400 ml",
      quantity: 1,
      unitPrice: 299,
      lineTotal: 299,
    },
  ],
  totalAmount: 997,
  checkoutFee: 19.94,
  finalAmount: 1016.94,
  history: [
    { status: "payment_pending", at: "2026-11-25T16:23:39.123+00:00" },
    { status: "paid", at: "2026-11-25T16:24:02+00:00" },
    { status: "processing", at: "2026-11-26T04:00:00+00:00" },
    { status: "shipped", at: "2026-11-26T18:45:00+00:00" },
  ],
  shipment: {
    carrier: "Delhivery",
    trackingNumber: "EE123456789IN",
    trackingUrl: "https://track.carrier.example/EE123456789IN",
  },
};

/** Every operation's examples; an operation without an entry fails tests/openapi_test.ts. */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  createOrder: {
    request: {
      gateway: {
        summary: "Two teas and a large tumbler, paid by UPI through the gateway (2 % fee)",
        value: {
          ...BUYER,
          items: [
            { productId: EXAMPLE_IDS.tea, quantity: 2, price: 349 },
            { productId: EXAMPLE_IDS.tumbler, variantId: EXAMPLE_IDS.largeTumbler, quantity: 1, price: 299 },
          ],
          paymentMethod: "gateway",
          gatewayMethod: "upi",
        },
      },
      upiDirect: {
        summary: "A chai mix paid by a UPI transfer, with the link to its proof (no fee)",
        value: {
          ...BUYER,
          items: [{ productId: EXAMPLE_IDS.chai, quantity: 1, price: 199.5 }],
          paymentMethod: "upi_direct",
          paymentProofUrl: "https://bank.example/upi/receipt/UPI123456",
        },
      },
    },
    success: {
      gateway: {
        summary: "The gateway order: 997.00 and a fee of 19.94",
        value: {
          success: true,
          orderId: EXAMPLE_IDS.order,
          orderNumber: "ORD-2026-000042",
          totalAmount: 997,
          checkoutFee: 19.94,
          finalAmount: 1016.94,
          status: "payment_pending",
        },
      },
      upiDirect: {
        summary: "The UPI transfer's order: no fee",
        value: {
          success: true,
          orderId: "0196f1c2-7b00-7c3d-8e5f-0a1b2c3d4e60",
          orderNumber: "ORD-2026-000043",
          totalAmount: 199.5,
          checkoutFee: 0,
          finalAmount: 199.5,
          status: "payment_pending",
        },
      },
    },
  },
  updateOrderStatus: {
    request: {
      shipped: {
        summary: "Shipped, with the parcel's carrier, number and link",
        value: {
          orderId: EXAMPLE_IDS.order,
          status: "shipped",
          carrier: "Delhivery",
          trackingNumber: "EE123456789IN",
          trackingUrl: "https://track.carrier.example/EE123456789IN",
        },
      },
      cancelled: {
        summary: "Cancelled, named by store and number, with the reason",
        value: {
          storeId: EXAMPLE_IDS.store,
          orderNumber: "ORD-2026-000043",
          status: "cancelled",
          note: "The buyer asked to cancel",
        },
      },
    },
    success: {
      shipped: {
        summary: "Moved to shipped; delivered is the one move left",
        value: { success: true, ...SHIPPED_ORDER, status: "shipped", allowed: ["delivered"], changed: true },
      },
      cancelledPaid: {
        summary:
          "A paid order cancelled: its payment goes back through Razorpay, issued by the next drain run",
        value: {
          success: true,
          ...SHIPPED_ORDER,
          status: "cancelled",
          allowed: [],
          changed: true,
          refund: { amount: 1016.94, status: "pending" },
        },
      },
    },
    errors: { UNAUTHORIZED: _SERVICE_KEY_REQUIRED },
  },
  paymentWebhook: {
    request: {
      paymentCaptured: {
        summary: "Razorpay's payment.captured for the gateway order (1016.94 in paise), trimmed",
        value: {
          entity: "event",
          event: "payment.captured",
          payload: {
            payment: {
              entity: {
                id: "pay_29QQoUBi66xm2f",
                amount: 101694,
                currency: "INR",
                status: "captured",
                method: "upi",
                notes: { orderId: EXAMPLE_IDS.order },
              },
            },
          },
          created_at: 1767225600,
        },
      },
    },
    success: {
      paid: {
        summary: "The payment paid the order",
        value: {
          received: true,
          outcome: "paid",
          orderId: EXAMPLE_IDS.order,
          orderStatus: "paid",
          refundDue: false,
          replayed: false,
        },
      },
      refundProcessed: {
        summary: "refund.processed of a refund the drain issued: the bank has it",
        value: {
          received: true,
          refundId: "019ad2c4-5e6f-7a1b-8c2d-3e4f5a6b7c8d",
          orderId: EXAMPLE_IDS.order,
          refundStatus: "processed",
          changed: true,
          replayed: false,
        },
      },
      ignored: {
        summary: "An event that confirms no payment",
        value: { received: true, ignored: "refund.created does not confirm a payment" },
      },
    },
    errors: {
      UNAUTHORIZED: {
        summary: "The signature does not sign this body",
        message: "The X-Razorpay-Signature header does not sign this body",
      },
    },
  },
  trackOrder: {
    parameters: { order: EXAMPLE_IDS.order, token: "q3v0Xb9gJ2xY7mK1pL4sT8wZ5cR6nA0dE3fH9jQ2uVw" },
    success: {
      shipped: {
        summary: "A shipped order, as its tracking link shows it",
        value: SHIPPED_ORDER_ANSWER,
      },
    },
    errors: {
      ORDER_NOT_FOUND: {
        summary: "No order matches this link",
        message: "No order matches this tracking link",
      },
    },
  },
  startPayment: {
    request: {
      order: { summary: "Open the payment of a gateway order", value: { orderId: EXAMPLE_IDS.order } },
    },
    success: {
      razorpay: {
        summary: "The Razorpay order to open Checkout with (amount in paise)",
        value: {
          success: true,
          orderId: EXAMPLE_IDS.order,
          orderNumber: "ORD-2026-000042",
          provider: "razorpay",
          keyId: "rzp_test_1DP5mmOlF5G5ag",
          providerOrderId: "order_EKwxwAgItmmXdp",
          amount: 101694,
          currency: "INR",
          method: "upi",
          storeName: "Chai & Co.",
        },
      },
    },
  },
  verifyPayment: {
    request: {
      handler: {
        summary: "What Checkout's handler received, with the order it paid",
        value: {
          orderId: EXAMPLE_IDS.order,
          razorpayOrderId: "order_EKwxwAgItmmXdp",
          razorpayPaymentId: "pay_29QQoUBi66xm2f",
          razorpaySignature: "9ef4dffbfd84f1318f6739a3ce19f9d85851857ae648f114332d8401e0949a3d",
        },
      },
    },
    success: {
      paid: {
        summary: "The payment was captured and pays the order",
        value: {
          success: true,
          orderId: EXAMPLE_IDS.order,
          orderNumber: "ORD-2026-000042",
          status: "paid",
          outcome: "paid",
        },
      },
    },
  },
  drainOutbox: {
    request: {
      cron: { summary: "What pg_cron posts every minute: the defaults", value: {} },
      now: { summary: "Everything due now, whatever its age", value: { minAgeSeconds: 0 } },
    },
    success: {
      run: {
        summary: "One unpaid order cancelled, one refund issued, three e-mails sent, nothing dead or failed",
        value: {
          unpaidOrders: { cancelled: 1, orderIds: ["0196f1c2-7b00-7c3d-8e5f-0a1b2c3d4e60"], skipped: 0 },
          emails: { claimed: 3, sent: 3, failed: 0, dead: 0, ignored: 0, superseded: 0, released: 0 },
          deadEmails: { total: 0, emails: [] },
          refunds: { issued: 1, adopted: 0, failed: 0, released: 0 },
          failedRefunds: [],
          purged: { idempotencyKeys: 3, rateLimitWindows: 5 },
        },
      },
    },
    errors: { UNAUTHORIZED: _SERVICE_KEY_REQUIRED },
  },
};
