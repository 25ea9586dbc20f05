/** Reading a request body with a hard size limit, never buffering more than the limit. */
import { OrderError } from "../errors.ts";

/** The largest body accepted: 64 KiB (contract, Endpoint). */
export const MAX_BODY_BYTES = 64 * 1024;

function _tooLarge(limit: number): OrderError {
  return new OrderError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes`);
}

/**
 * Reads the body as text, refusing with PAYLOAD_TOO_LARGE as soon as Content-Length or the bytes read
 * pass `limit`; the stream is cancelled, so a huge upload costs no more than the limit.
 */
export async function readBodyText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw _tooLarge(limit);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw _tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new OrderError("INVALID_JSON", "The request body must be UTF-8 JSON");
  }
}

/** Parses JSON text, or throws INVALID_JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OrderError("INVALID_JSON", "The request body must be valid JSON");
  }
}
