/**
 * The token of a guest buyer's tracking link: the HMAC-SHA256 of the order id (lower case) with
 * ORDER_TRACKING_SECRET, base64url without padding (43 characters). Whoever holds the link may see the
 * order's status; nobody can make a token for another order without the secret. No I/O: WebCrypto only.
 */
import { timingSafeEqual } from "../http/auth.ts";

/** A token's shape: 32 bytes of HMAC-SHA256 in base64url, no padding. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const encoder = new TextEncoder();
const _keys = new Map<string, Promise<CryptoKey>>();

function _hmacKey(secret: string): Promise<CryptoKey> {
  let key = _keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    _keys.set(secret, key);
  }
  return key;
}

function _base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The tracking token of `orderId` under `secret`. */
export async function orderTrackingToken(secret: string, orderId: string): Promise<string> {
  const signature = await crypto.subtle.sign(
    "HMAC",
    await _hmacKey(secret),
    encoder.encode(orderId.toLowerCase()),
  );
  return _base64url(new Uint8Array(signature));
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
