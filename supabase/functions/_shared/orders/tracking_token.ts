/**
 * The token of a guest buyer's tracking link: the HMAC-SHA256 of the order id (lower case) with
 * ORDER_TRACKING_SECRET, base64url without padding (43 characters). Whoever holds the link may see the
 * order's status; nobody can make a token for another order without the secret. No I/O.
 *
 * The HMAC is node:crypto's, computed at once, not WebCrypto's: Deno runs each `crypto.subtle.sign` as an
 * asynchronous operation on another thread, and under load that cost the create-order function more CPU
 * than rendering the e-mail (with the token left out, a scratch run used a quarter less CPU per order; see
 * BENCHMARKS.md). node:crypto is loaded on the first token, so a function that makes none never loads it.
 */
import { timingSafeEqual } from "../http/auth.ts";

/** A token's shape: 32 bytes of HMAC-SHA256 in base64url, no padding. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

let _createHmac: Promise<typeof import("node:crypto").createHmac> | undefined;

/** The tracking token of `orderId` under `secret`. */
export async function orderTrackingToken(secret: string, orderId: string): Promise<string> {
  const createHmac = await (_createHmac ??= import("node:crypto").then((module) => module.createHmac));
  return createHmac("sha256", secret).update(orderId.toLowerCase()).digest("base64url");
}

/**
 * Whether `token` is the tracking token of `orderId` under `secret`, compared in constant time so the
 * answer's timing does not tell how much of a guess was right.
 */
export async function isOrderTrackingToken(
  secret: string,
  orderId: string,
  token: string | null | undefined,
): Promise<boolean> {
  if (!token || !TOKEN_SHAPE.test(token)) return false;
  return timingSafeEqual(await orderTrackingToken(secret, orderId), token);
}
