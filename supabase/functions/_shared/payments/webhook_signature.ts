/**
 * Webhook signatures of the hex HMAC-SHA256 kind (Razorpay's `X-Razorpay-Signature`): the digest of the
 * raw body bytes, keyed with the webhook secret, compared in constant time.
 */
import { timingSafeEqual } from "../http/auth.ts";

const _encoder = new TextEncoder();

/** The lower-case hex HMAC-SHA256 of `message` keyed with `secret`. */
export async function hmacSha256Hex(secret: string, message: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    _encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const digest = new Uint8Array(await crypto.subtle.sign("HMAC", key, message as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether `signature` is the hex HMAC-SHA256 of `body` with `secret`. The comparison takes the same time
 * wherever the two differ, so a forger learns nothing from it; hex digits are compared case-insensitively.
 */
export async function verifyHexHmacSha256(
  body: Uint8Array,
  signature: string,
  secret: string,
): Promise<boolean> {
  const expected = await hmacSha256Hex(secret, body);
  return timingSafeEqual(signature.trim().toLowerCase(), expected);
}
