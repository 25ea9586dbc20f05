/** The Idempotency-Key header (IETF draft "The Idempotency-Key HTTP Header Field"). */
import { OrderError } from "../errors.ts";

const PRINTABLE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/** The request's Idempotency-Key: null when absent; VALIDATION_FAILED unless 1-255 printable ASCII chars. */
export function readIdempotencyKey(headers: Headers): string | null {
  const key = headers.get("idempotency-key");
  if (key === null) return null;
  if (key.length > 255 || !PRINTABLE.test(key)) {
    throw new OrderError("VALIDATION_FAILED", "The request is invalid", {
      details: [{
        path: "Idempotency-Key",
        message: "Idempotency-Key must be 1 to 255 printable ASCII characters",
      }],
    });
  }
  return key;
}

/** SHA-256 of the body text, hex: the same key with another body is refused. */
export async function hashBody(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
