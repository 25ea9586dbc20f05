/**
 * Razorpay Checkout's payment signature: what its `handler` receives as `razorpay_signature` is the hex
 * HMAC-SHA256 of `razorpay_order_id + "|" + razorpay_payment_id`, keyed with the API key secret. Only a
 * holder of the secret (Razorpay) can make one, so a valid signature proves Razorpay reported this payment
 * for this order.
 */
import { timingSafeEqual } from "../http/auth.ts";
import { hmacSha256Hex } from "./webhook_signature.ts";

const _encoder = new TextEncoder();

/** The signature Razorpay gives Checkout's handler for `paymentId` of `orderId`. */
export function checkoutSignature(orderId: string, paymentId: string, keySecret: string): Promise<string> {
  return hmacSha256Hex(keySecret, _encoder.encode(`${orderId}|${paymentId}`));
}

/**
 * Whether `signature` is Razorpay's for `paymentId` of `orderId`, compared in constant time (hex digits in
 * any letter case), so a forger learns nothing from how long the answer took.
 */
export async function isCheckoutSignature(
  orderId: string,
  paymentId: string,
  signature: string,
  keySecret: string,
): Promise<boolean> {
  const expected = await checkoutSignature(orderId, paymentId, keySecret);
  return timingSafeEqual(signature.trim().toLowerCase(), expected);
}
