/**
 * The one fake Resend, on 127.0.0.1, for the tests, the benchmarks and a local stack pointed at it
 * (`RESEND_BASE_URL`): Resend's documented paths and shapes, POST /emails (`{ id }`) and POST /emails/batch
 * (`{ data: [{ id }] }`, up to 100 e-mails, strict validation), deduplicated by Idempotency-Key as Resend
 * does (a key is kept once its e-mails are sent: the same key and body answer the first answer again and
 * deliver nothing; the same key with another body is 409 `invalid_idempotent_request`). Failure switches:
 * answers scripted per request (`script`) or for every request (`always`): a 500, a 422, a 429 with
 * `retry-after`, a request that hangs (the connection accepted, never answered), one that is delivered and
 * then hangs or fails, or a slow success. `rateLimit` enforces an account's requests a second with 429s as
 * Resend does.
 *
 * Run alone it serves on $PORT, remembering nothing but counts (GET /__stats), so a load test's memory stays
 * flat: `PORT=4010 deno run --allow-net --allow-env local/fake_resend.ts` (FAKE_RESEND_RATE_PER_SECOND: a
 * rate limit).
 */

/**
 * One answer: success; a server error or a 422 (nothing delivered); a rate limit with `retry-after` seconds;
 * a slow success (delivered at once, answered after `slowMs`); `hang` (never answered, nothing delivered);
 * `act-then-hang` (delivered, never answered); `act-then-fail` (delivered, answered 500).
 */
export type FakeAnswer =
  | "ok"
  | "hang"
  | "act-then-hang"
  | "act-then-fail"
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
  /** When it arrived (Date.now()). */
  at: number;
}

/** An e-mail the fake delivered (once per message: duplicates under one key are dropped). */
export interface DeliveredEmail {
  id: string;
  from: string;
  to: string | string[];
  replyTo?: string | string[];
  subject: string;
  html: string;
  text: string;
  /** The idempotency key of the request that delivered it. */
  idempotencyKey: string | null;
}

/** Counts since start. */
export interface FakeResendStats {
  requests: number;
  /** E-mails delivered. */
  sent: number;
  /** Requests refused by the rate limit. */
  rateLimited: number;
}

/** Options of {@linkcode startFakeResend}. */
export interface FakeResendOptions {
  /** Default: a free port. */
  port?: number;
  /** Refuse requests past this many a second (a sliding second) with 429 and `retry-after`. */
  rateLimit?: { perSecond: number };
  /** Keep requests, deliveries and idempotency keys (default true); false keeps counts only. */
  remember?: boolean;
}

/** A running fake. */
export interface FakeResend {
  /** The base URL to give the SDK (`RESEND_BASE_URL`). */
  url: string;
  requests: SeenRequest[];
  delivered: DeliveredEmail[];
  stats: FakeResendStats;
  /** Queues answers for the next requests; when the queue is empty, the `always` answer (default "ok"). */
  script(...answers: FakeAnswer[]): void;
  /** The answer of every request no script answers. */
  always(answer: FakeAnswer): void;
  /** Stops listening: requests fail as a network error until {@linkcode FakeResend.up}. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  /** Answers every hanging request (503) and stops. */
  close(): Promise<void>;
}

type _Stored = { bodyText: string; status: number; json: unknown };

/** Starts a fake Resend on 127.0.0.1. */
export function startFakeResend(options: FakeResendOptions = {}): FakeResend {
  const remember = options.remember ?? true;
  const requests: SeenRequest[] = [];
  const delivered: DeliveredEmail[] = [];
  const stats: FakeResendStats = { requests: 0, sent: 0, rateLimited: 0 };
  const queue: FakeAnswer[] = [];
  let standing: FakeAnswer = "ok";
  const byKey = new Map<string, _Stored>();
  const hanging = new Set<() => void>();
  const window: number[] = [];

  /** Delivers a request's e-mails and keeps its key: the answer Resend gives, and gives again for the key. */
  const _deliver = (
    path: string,
    key: string | null,
    bodyText: string,
    emails: Record<string, unknown>[],
  ) => {
    const ids = emails.map((email) => {
      const id = crypto.randomUUID();
      stats.sent++;
      if (remember) {
        delivered.push({
          id,
          from: String(email.from),
          to: email.to as string,
          replyTo: email.reply_to as string | undefined,
          subject: String(email.subject),
          html: String(email.html),
          text: String(email.text),
          idempotencyKey: key,
        });
      }
      return { id };
    });
    const json = path === "/emails" ? ids[0] : { data: ids };
    if (key && remember) byKey.set(`${path} ${key}`, { bodyText, status: 200, json });
    return json;
  };

  /** A response that never comes, until the client gives up or the fake closes. */
  const _hang = (request: Request): Promise<Response> =>
    new Promise((resolve) => {
      const end = () => {
        hanging.delete(end);
        resolve(_error(503, "application_error", "the fake closed"));
      };
      hanging.add(end);
      request.signal.addEventListener("abort", end, { once: true });
    });

  const _rateLimited = (): Response | null => {
    if (!options.rateLimit) return null;
    const now = Date.now();
    while (window.length > 0 && window[0] <= now - 1000) window.shift();
    if (window.length < options.rateLimit.perSecond) {
      window.push(now);
      return null;
    }
    stats.rateLimited++;
    const retryAfter = Math.max(1, Math.ceil((window[0] + 1000 - now) / 1000));
    return _error(429, "rate_limit_exceeded", "Too many requests. You can only make 2 requests per second.", {
      "retry-after": String(retryAfter),
      "ratelimit-limit": String(options.rateLimit.perSecond),
      "ratelimit-remaining": "0",
      "ratelimit-reset": String(retryAfter),
    });
  };

  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/__stats") return Response.json(stats);
    const bodyText = await request.text();
    const key = request.headers.get("idempotency-key");
    let body: unknown = null;
    try {
      body = JSON.parse(bodyText);
    } catch { /* recorded as null */ }
    stats.requests++;
    if (remember) {
      requests.push({
        path,
        idempotencyKey: key,
        authorization: request.headers.get("authorization"),
        batchValidation: request.headers.get("x-batch-validation"),
        body,
        at: Date.now(),
      });
    }
    if (request.method !== "POST" || (path !== "/emails" && path !== "/emails/batch")) {
      return _error(404, "not_found", "no such route");
    }
    const limited = _rateLimited();
    if (limited) return limited;
    const answer = queue.shift() ?? standing;
    if (answer === "hang") return _hang(request);
    if (typeof answer === "object" && "status" in answer) {
      if (answer.status === 429) {
        const headers = answer.retryAfter === undefined
          ? undefined
          : { "retry-after": String(answer.retryAfter) };
        stats.rateLimited++;
        return _error(429, "rate_limit_exceeded", "Too many requests", headers);
      }
      if (answer.status === 422) return _error(422, "validation_error", "Invalid `to` field.");
      return _error(500, "internal_server_error", "Something went wrong");
    }

    const emails = (path === "/emails" ? [body] : body) as Record<string, unknown>[] | null;
    const invalid = _invalid(path, emails);
    if (invalid) return invalid;
    const stored = key ? byKey.get(`${path} ${key}`) : undefined;
    if (stored && stored.bodyText !== bodyText) {
      return _error(409, "invalid_idempotent_request", "Same idempotency key used with a different request");
    }
    // a key seen before answers its first answer again and delivers nothing; the switch still decides how
    const json = stored ? stored.json : _deliver(path, key, bodyText, emails!);
    if (answer === "act-then-hang") return await _hang(request);
    if (answer === "act-then-fail") return _error(500, "internal_server_error", "Something went wrong");
    if (typeof answer === "object" && "slowMs" in answer) {
      await new Promise((resolve) => setTimeout(resolve, answer.slowMs));
    }
    return Response.json(json);
  };

  const serve = (port: number) =>
    Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, (request) => handle(request));
  let server = serve(options.port ?? 0);
  const port = server.addr.port;
  let running = true;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    delivered,
    stats,
    script: (...answers) => void queue.push(...answers),
    always: (answer) => void (standing = answer),
    async down() {
      if (!running) return;
      running = false;
      for (const end of [...hanging]) end();
      await server.shutdown();
    },
    up() {
      if (running) return;
      server = serve(port);
      running = true;
    },
    async close() {
      for (const end of [...hanging]) end();
      if (running) await server.shutdown();
      running = false;
    },
  };
}

/** Resend's 422 for a request it will not send: no e-mail, a batch of none or more than 100, a field missing. */
function _invalid(path: string, emails: Record<string, unknown>[] | null): Response | null {
  if (!Array.isArray(emails) || (path === "/emails/batch" && (emails.length === 0 || emails.length > 100))) {
    return _error(422, "validation_error", "The batch must hold 1 to 100 emails.");
  }
  const bad = emails.findIndex((email) => !email || !email.from || !email.to || !email.subject);
  return bad < 0 ? null : _error(422, "validation_error", `Missing a required field in email ${bad}.`);
}

function _error(status: number, name: string, message: string, headers?: Record<string, string>): Response {
  return Response.json({ statusCode: status, name, message }, { status, headers });
}

if (import.meta.main) {
  const perSecond = Number(Deno.env.get("FAKE_RESEND_RATE_PER_SECOND") ?? "");
  startFakeResend({
    port: Number(Deno.env.get("PORT") ?? 0),
    remember: false,
    ...(perSecond > 0 ? { rateLimit: { perSecond } } : {}),
  });
}
