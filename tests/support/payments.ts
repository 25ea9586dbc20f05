/** Builders and calls for the payment functions' tests: orders to pay, and the calls a storefront makes. */
import type { SqlDatabase } from "../../local/sql_database.ts";
import type { CheckoutAnswer } from "../../local/fake_razorpay/fake_razorpay.ts";
import { createTestStore } from "./catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./create_order_payload.ts";

/** Two Assam Tea by card: 698.00 + 2.5 % = 715.45, so 71,545 paise. */
export const CARD_ORDER_PAISE = 71_545;

/** The same two teas by UPI direct transfer: 698.00, so 69,800 paise. */
export const UPI_DIRECT_PAISE = 69_800;

/** An order of a new store (gateway/card unless `method` says otherwise), placed through create_order. */
export async function placeOrder(db: SqlDatabase, method: "card" | "upi" | "upi_direct" = "card") {
  const store = await createTestStore(db, { name: "Chai & Co" });
  const overrides = method === "upi_direct"
    ? {
      paymentMethod: "upi_direct" as const,
      gatewayMethod: null,
      paymentProofUrl: "https://proof.example/upi/1.png",
      feeMinor: 0,
      finalMinor: UPI_DIRECT_PAISE,
    }
    : method === "upi"
    ? { gatewayMethod: "upi" as const, feeMinor: 1_396, finalMinor: 71_196 }
    : {};
  const { response } = await callCreateOrder(db, createOrderPayload(store, overrides));
  return { orderId: response.orderId, orderNumber: response.orderNumber, storeId: store.storeId };
}

/** POSTs `body` to the stack's function `name` with the anon key (as a storefront does). */
export function postFunction(
  stack: { url: string; anonKey: string },
  name: string,
  body: unknown,
  headers: HeadersInit = {},
): Promise<Response> {
  return fetch(`${stack.url}/functions/v1/${name}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.anonKey}`, "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** start-payment's 200 body for the order (throws on another answer). */
export async function startPayment(stack: { url: string; anonKey: string }, orderId: string) {
  const response = await postFunction(stack, "start-payment", { orderId });
  const body = await response.json();
  if (response.status !== 200) {
    throw new Error(`start-payment answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body as {
    orderId: string;
    orderNumber: string;
    keyId: string;
    providerOrderId: string;
    amount: number;
    currency: string;
    method: string;
  };
}

/** verify-payment's body for Checkout's handler response `answer`. */
export function verifyBody(orderId: string, answer: CheckoutAnswer) {
  if ("error" in answer) throw new Error(`the checkout failed: ${answer.error.description}`);
  return {
    orderId,
    razorpayOrderId: answer.razorpay_order_id,
    razorpayPaymentId: answer.razorpay_payment_id,
    razorpaySignature: answer.razorpay_signature,
  };
}

/** The payments ledger's rows of an order, oldest first. */
export function ledgerRows(db: SqlDatabase, orderId: string) {
  return db.query<
    { provider_event_id: string; provider_payment_id: string; outcome: string; amount: string }
  >(
    `select provider_event_id, provider_payment_id, outcome, amount::text from public.payments
     where order_id = $1 order by received_at, provider_event_id`,
    [orderId],
  );
}
