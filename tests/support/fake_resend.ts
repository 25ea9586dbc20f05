/**
 * A fake Resend API on 127.0.0.1 for tests that go through the real SDK: POST /emails and
 * POST /emails/batch, deduplicated by Idempotency-Key as Resend does (same key and body: the first
 * answer again, nothing new delivered; same key, other body: 409). Answers are scriptable per request.
 */

/**
 * One scripted answer: success, a server error, a rate limit with `retry-after` seconds, a 422, or a slow
 * success (accepted at once, answered only after `slowMs`: the provider has the e-mail, the caller may give up).
 */
export type FakeAnswer =
  | "ok"
  | { status: 500 }
  | { status: 429; retryAfter?: number }
  | { status: 422 }
  | { slowMs: number };

/** A request as the fake saw it. */
export interface SeenRequest {
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  batchValidation: string | null;
  body: unknown;
}

/** An e-mail the fake accepted (one per message, duplicates dropped by key). */
export interface DeliveredEmail {
  id: string;
  from: string;
  to: string | string[];
  replyTo?: string | string[];
  subject: string;
  html: string;
  text: string;
}

/** A running fake. */
export interface FakeResend {
  /** The base URL to give the SDK (`RESEND_BASE_URL`). */
  url: string;
  requests: SeenRequest[];
  delivered: DeliveredEmail[];
  /** Queues answers for the next requests; when the queue is empty every request succeeds. */
  script(...answers: FakeAnswer[]): void;
  /** Stops listening: requests fail as a network error until {@linkcode FakeResend.up}. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  close(): Promise<void>;
}

type _Stored = { bodyText: string; status: number; json: unknown };

/** Starts a fake Resend on a free port of 127.0.0.1. */
export function startFakeResend(): FakeResend {
  const requests: SeenRequest[] = [];
  const delivered: DeliveredEmail[] = [];
  const queue: FakeAnswer[] = [];
  const byKey = new Map<string, _Stored>();

  /** Accepts a send as Resend does: deduplicated by Idempotency-Key, each new message delivered once. */
  const _accept = (path: string, key: string | null, bodyText: string, body: unknown): Response => {
    if (key) {
      const stored = byKey.get(`${path} ${key}`);
      if (stored && stored.bodyText !== bodyText) {
        return _error(
          409,
          "invalid_idempotent_request",
          "Same idempotency key used with a different request",
        );
      }
      if (stored) return Response.json(stored.json, { status: stored.status });
    }
    const emails = (path === "/emails" ? [body] : body) as Record<string, unknown>[];
    const ids = emails.map((email) => {
      const id = crypto.randomUUID();
      delivered.push({
        id,
        from: String(email.from),
        to: email.to as string,
        replyTo: email.reply_to as string | undefined,
        subject: String(email.subject),
        html: String(email.html),
        text: String(email.text),
      });
      return { id };
    });
    const json = path === "/emails" ? ids[0] : { data: ids };
    if (key) byKey.set(`${path} ${key}`, { bodyText, status: 200, json });
    return Response.json(json);
  };

  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const bodyText = await request.text();
    const key = request.headers.get("idempotency-key");
    let body: unknown = null;
    try {
      body = JSON.parse(bodyText);
    } catch { /* recorded as null */ }
    requests.push({
      path,
      idempotencyKey: key,
      authorization: request.headers.get("authorization"),
      batchValidation: request.headers.get("x-batch-validation"),
      body,
    });
    if (request.method !== "POST" || (path !== "/emails" && path !== "/emails/batch")) {
      return _error(404, "not_found", "no such route");
    }
    const answer = queue.shift() ?? "ok";
    if (typeof answer === "object" && "slowMs" in answer) {
      const response = _accept(path, key, bodyText, body);
      await new Promise((resolve) => setTimeout(resolve, answer.slowMs));
      return response;
    }
    if (answer !== "ok") {
      if (answer.status === 429) {
        const headers = answer.retryAfter === undefined
          ? undefined
          : { "retry-after": String(answer.retryAfter) };
        return _error(429, "rate_limit_exceeded", "Too many requests", headers);
      }
      if (answer.status === 422) return _error(422, "validation_error", "Invalid `to` field.");
      return _error(500, "internal_server_error", "Something went wrong");
    }
    return _accept(path, key, bodyText, body);
  };

  let server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handle);
  const port = server.addr.port;
  let running = true;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    delivered,
    script: (...answers) => void queue.push(...answers),
    async down() {
      if (!running) return;
      running = false;
      await server.shutdown();
    },
    up() {
      if (running) return;
      server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, handle);
      running = true;
    },
    async close() {
      if (running) await server.shutdown();
      running = false;
    },
  };
}

function _error(status: number, name: string, message: string, headers?: Record<string, string>): Response {
  return Response.json({ statusCode: status, name, message }, { status, headers });
}
