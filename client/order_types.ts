/**
 * The create-order API as a storefront sends and receives it: the JSON body (decimal amounts in the store's
 * currency, the phone as the buyer typed it), the answers, and the error codes with each code's `details`.
 * Plain TypeScript with no imports, for Deno and bundlers alike; openapi.json describes the same wire, and
 * tests/client_types_test.ts holds these types to the functions' own schemas.
 */

/** How the buyer pays: a UPI transfer checked by the seller against a proof, or the payment gateway. */
export type PaymentMethod = "upi_direct" | "gateway";

/** The gateway's sub-method; it sets the checkout fee (card 2.5 %, upi and wallet 2 %). */
export type GatewayMethod = "card" | "upi" | "wallet";

/** Where the order goes. Text fields: 1–200 characters (postalCode 1–20) once trimmed. */
export interface ShippingAddress {
  line1: string;
  /** Absent, null or only spaces is none. */
  line2?: string | null;
  city: string;
  state: string;
  postalCode: string;
  /** An ISO 3166-1 alpha-2 code in any letter case, e.g. `IN`. */
  country: string;
}

/** One line of the cart. */
export interface OrderItem {
  productId: string;
  /** Required when the product has active variants (else 400 VARIANT_REQUIRED). */
  variantId?: string | null;
  /** A whole number from 1 to 10000. */
  quantity: number;
  /**
   * The unit price the buyer was shown, in rupees with at most 2 decimals (349.5 for ₹349.50). It must be
   * the catalogue's current price, the variant's when it has one, else the product's (else PRICE_MISMATCH).
   */
  price: number;
}

/** The body of POST /functions/v1/create-order. Unknown fields are refused. */
export interface CreateOrderBody {
  storeId: string;
  buyerEmail: string;
  buyerName: string;
  /** `+`, the country code and the number; spaces, hyphens, dots and parentheses are fine. */
  buyerPhone: string;
  shippingAddress: ShippingAddress;
  /** 1 to 100 items. */
  items: OrderItem[];
  paymentMethod: PaymentMethod;
  /** Only with `gateway` (default `card`); null is the same as leaving it out. */
  gatewayMethod?: GatewayMethod | null;
  /** An absolute http(s) URL: required for `upi_direct`. */
  paymentProofUrl?: string | null;
}

/** An order's status. */
export type OrderStatus =
  | "pending"
  | "payment_pending"
  | "paid"
  | "processing"
  | "shipped"
  | "delivered"
  | "cancelled";

/** The stored order, as create-order answers 200. Amounts are decimals in the store's currency. */
export interface CreatedOrder {
  success: true;
  orderId: string;
  /** `ORD-<year>-<sequence>`, e.g. `ORD-2026-000001`. */
  orderNumber: string;
  /** Σ price × quantity. */
  totalAmount: number;
  /** The payment method's fee on totalAmount, rounded half up to the paisa. */
  checkoutFee: number;
  /** totalAmount + checkoutFee: what the buyer pays. */
  finalAmount: number;
  status: "payment_pending";
}

/** Every error code the functions answer, as the contract lists them. */
export const ERROR_CODES = [
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "PRICE_MISMATCH",
  "VARIANT_REQUIRED",
  "PAYMENT_SIGNATURE_INVALID",
  "UNAUTHORIZED",
  "STORE_NOT_FOUND",
  "PRODUCT_NOT_FOUND",
  "VARIANT_NOT_FOUND",
  "ORDER_NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "REQUEST_TIMEOUT",
  "IDEMPOTENCY_KEY_IN_USE",
  "INVALID_TRANSITION",
  "OUT_OF_STOCK",
  "ORDER_NOT_PAYABLE",
  "PAYMENT_ORDER_MISMATCH",
  "PAYMENT_NOT_CAPTURED",
  "PAYLOAD_TOO_LARGE",
  "IDEMPOTENCY_KEY_REUSED",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "PAYMENT_PROVIDER_ERROR",
  "PAYMENT_PROVIDER_NOT_CONFIGURED",
] as const;

/** An error code of the functions. */
export type ErrorCode = typeof ERROR_CODES[number];

/** The codes create-order answers (the others belong to the seller's and the gateway's functions). */
export const CREATE_ORDER_ERROR_CODES = [
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "PRICE_MISMATCH",
  "VARIANT_REQUIRED",
  "UNAUTHORIZED",
  "STORE_NOT_FOUND",
  "PRODUCT_NOT_FOUND",
  "VARIANT_NOT_FOUND",
  "REQUEST_TIMEOUT",
  "IDEMPOTENCY_KEY_IN_USE",
  "OUT_OF_STOCK",
  "PAYLOAD_TOO_LARGE",
  "IDEMPOTENCY_KEY_REUSED",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
] as const satisfies readonly ErrorCode[];

/** An error code create-order answers. */
export type CreateOrderErrorCode = typeof CREATE_ORDER_ERROR_CODES[number];

/**
 * The client's own outcomes, when no answer of the function could be read: `NETWORK_ERROR` (the request
 * failed or was aborted: the order may or may not exist, so retry with the same idempotency key) and
 * `UNEXPECTED_RESPONSE` (an answer that is not the function's JSON, e.g. a gateway's error page, or an error
 * body whose code is not one of {@linkcode CREATE_ORDER_ERROR_CODES}: its code is then in `message`).
 */
export type ClientErrorCode = "NETWORK_ERROR" | "UNEXPECTED_RESPONSE";

/** One failing field: its dotted path in the body (`shippingAddress.country`, `items.0.price`). */
export interface FieldIssue {
  path: string;
  message: string;
}

/** An item whose price is not the catalogue's. */
export interface PriceMismatch {
  /** The item's position in `items`, from 0. */
  index: number;
  productId: string;
  variantId: string | null;
  /** The current catalogue price: show it, and send it next time. */
  price: number;
  submittedPrice: number;
}

/** An item that wants more than its stock has left. */
export interface StockShortage {
  index: number;
  productId: string;
  variantId: string | null;
  /** Units left of the stock the item draws on. */
  available: number;
}

/** `details` for each code that has them; every other code has none (`undefined`). */
export interface ErrorDetailsByCode {
  VALIDATION_FAILED: FieldIssue[];
  PRICE_MISMATCH: PriceMismatch[];
  VARIANT_REQUIRED: { index: number; productId: string };
  STORE_NOT_FOUND: { storeId: string };
  PRODUCT_NOT_FOUND: { index: number; productId: string };
  VARIANT_NOT_FOUND: { index: number; variantId: string };
  /** update-order-status names what it looked for; track-order gives none. */
  ORDER_NOT_FOUND: { orderId: string } | { storeId: string; orderNumber: string } | undefined;
  INVALID_TRANSITION: { from: OrderStatus; to: OrderStatus; allowed: OrderStatus[] };
  OUT_OF_STOCK: StockShortage[];
  /** Where the order stands: only a gateway order in payment_pending takes a payment. */
  ORDER_NOT_PAYABLE: { status: OrderStatus; paymentMethod: PaymentMethod };
  /** The payment's status at Razorpay (`failed`, `refunded`, ...). */
  PAYMENT_NOT_CAPTURED: { status: string };
}

/** The `details` of an error code. */
export type ErrorDetails<C extends string> = C extends keyof ErrorDetailsByCode ? ErrorDetailsByCode[C]
  : undefined;

/** The JSON body of every failure. */
export interface ErrorBody<C extends ErrorCode = ErrorCode> {
  success: false;
  error: { code: C; message: string; details?: ErrorDetails<C> };
}
