/** Reading a request body within a size and a time limit, never buffering more than the size limit. */
import { OrderError } from "../errors.ts";

/** The largest body accepted: 64 KiB (contract, Endpoint). */
export const MAX_BODY_BYTES = 64 * 1024;

/** How long a body may take to arrive: 10 s (contract, Endpoint). */
export const BODY_TIMEOUT_MS = 10_000;

/** Limits of {@linkcode readBodyText}. */
export interface BodyLimits {
  /** Largest body in bytes (default {@linkcode MAX_BODY_BYTES}). */
  maxBytes?: number;
  /** The whole body must have arrived this long after reading started (default {@linkcode BODY_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** The client closed the connection before its body arrived: nobody is left to answer. */
export class ClientClosedError extends Error {
  override name = "ClientClosedError";
}

function _tooLarge(limit: number): OrderError {
  return new OrderError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes`);
}

/**
 * Reads the body's bytes. Refuses with PAYLOAD_TOO_LARGE as soon as Content-Length or the bytes read pass
 * the size limit, and with REQUEST_TIMEOUT when the body has not ended within the time limit (a client
 * that trickles or never finishes would otherwise hold the request open); either way the stream is
 * cancelled, so neither costs more than the limits. A connection that fails mid-body is a
 * {@linkcode ClientClosedError}.
 */
export async function readBodyBytes(request: Request, limits: BodyLimits = {}): Promise<Uint8Array> {
  const maxBytes = limits.maxBytes ?? MAX_BODY_BYTES;
  const timeoutMs = limits.timeoutMs ?? BODY_TIMEOUT_MS;
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw _tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new OrderError("REQUEST_TIMEOUT", `The request body did not arrive within ${timeoutMs / 1000} s`),
        ),
      timeoutMs,
    );
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw _tooLarge(maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    // our own refusals pass; anything else the body stream throws is the client's connection failing
    if (error instanceof OrderError) throw error;
    throw new ClientClosedError("the client closed the connection before its body arrived", { cause: error });
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Decodes body bytes as UTF-8, or throws INVALID_JSON: the bodies we accept are UTF-8 JSON. */
export function decodeBodyText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new OrderError("INVALID_JSON", "The request body must be UTF-8 JSON");
  }
}

/** Reads the body as text within the limits of {@linkcode readBodyBytes}. */
export async function readBodyText(request: Request, limits: BodyLimits = {}): Promise<string> {
  return decodeBodyText(await readBodyBytes(request, limits));
}

/** Parses JSON text, or throws INVALID_JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OrderError("INVALID_JSON", "The request body must be valid JSON");
  }
}
