/**
 * The one HTTP frame every function runs in, written once: request id, CORS (preflight and exposed
 * headers), the method check, the key check, body limits, error rendering and the one log line. A
 * function's own handler is only its steps: `serveFunction({ name, methods, access, handle })`.
 */
import { OrderError } from "../errors.ts";
import { type ApiKeys, type KeyAccess, requireApiKey } from "./auth.ts";
import type { ConnectionInfo } from "./client_ip.ts";
import { corsOriginHeaders, corsPreflightHeaders } from "./cors.ts";
import { renderError } from "./http_errors.ts";
import { describeError, type Logger } from "./log.ts";
import { type BodyLimits, ClientClosedError, decodeBodyText, readBodyBytes } from "./request_body.ts";

/** nginx's status for a client that closed the connection before the answer: logged, never sent. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Who may call: a project key (`project`), only a service or secret key (`service`), or anyone
 * (`none`), for a function that authenticates the request itself (a webhook signature, a tracking token).
 */
export type Access = KeyAccess | "none";

/** What a function's steps see of the request. */
export interface RequestContext {
  request: Request;
  requestId: string;
  info?: ConnectionInfo;
  /** The body as text, read once within the frame's size and time limits (413, 408). */
  readBody(): Promise<string>;
  /** The body's raw bytes, read once within the same limits: what a webhook signature is computed over. */
  readBodyBytes(): Promise<Uint8Array>;
  /** Adds ids or figures (never personal data) to the request's one log line. */
  annotate(fields: Record<string, unknown>): void;
}

/** A JSON answer. */
export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A function served by the frame. */
export interface FunctionSpec {
  /** The `event` of the request's log line, e.g. `create_order`. */
  name: string;
  /** The methods it serves besides OPTIONS; anything else is 405 with `Allow`. */
  methods: readonly string[];
  access: Access;
  config: { apiKeys: ApiKeys; allowedOrigins: readonly string[] };
  log: Logger;
  handle(context: RequestContext): Promise<JsonReply>;
  bodyLimits?: BodyLimits;
  newRequestId?: () => string;
}

function _json(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
  });
}

/** Builds a function's `(Request, ConnectionInfo?) => Promise<Response>` for `Deno.serve`. */
export function serveFunction(spec: FunctionSpec) {
  const { config, log } = spec;
  const newRequestId = spec.newRequestId ?? (() => crypto.randomUUID());
  const allow = [...spec.methods, "OPTIONS"].join(", ");

  return async function handleRequest(request: Request, info?: ConnectionInfo): Promise<Response> {
    const started = performance.now();
    const requestId = newRequestId();
    const origin = request.headers.get("origin");
    const baseHeaders = { ...corsOriginHeaders(origin, config.allowedOrigins), "x-request-id": requestId };
    const annotations: Record<string, unknown> = {};
    let response: Response;
    let failure: { code: string; cause: unknown } | undefined;

    try {
      if (request.method === "OPTIONS") {
        response = new Response(null, {
          status: 204,
          headers: {
            ...corsPreflightHeaders(origin, config.allowedOrigins, spec.methods),
            "x-request-id": requestId,
          },
        });
      } else {
        if (!spec.methods.includes(request.method)) {
          throw new OrderError("METHOD_NOT_ALLOWED", `Only ${allow} are allowed`, {
            headers: { Allow: allow },
          });
        }
        if (spec.access !== "none") requireApiKey(request.headers, config.apiKeys, spec.access);
        let bodyRead = false;
        const readOnce = () => {
          if (bodyRead) throw new Error("the request body was read twice");
          bodyRead = true;
          return readBodyBytes(request, spec.bodyLimits);
        };
        const reply = await spec.handle({
          request,
          requestId,
          info,
          readBody: async () => decodeBodyText(await readOnce()),
          readBodyBytes: readOnce,
          annotate: (fields) => Object.assign(annotations, fields),
        });
        response = _json(reply.status, reply.body, { ...baseHeaders, ...reply.headers });
      }
    } catch (error) {
      if (error instanceof ClientClosedError) {
        // a client that went away is no server error: nobody reads this answer, the log says 499
        response = new Response(null, { status: CLIENT_CLOSED_REQUEST, headers: baseHeaders });
      } else {
        const rendered = renderError(error);
        failure = { code: rendered.body.error.code, cause: error };
        response = _json(rendered.status, rendered.body, { ...baseHeaders, ...rendered.headers });
      }
    }

    log({
      event: spec.name,
      requestId,
      method: request.method,
      status: response.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...annotations,
      ...(failure ? { code: failure.code } : {}),
      ...(failure && response.status >= 500 ? describeError(failure.cause) : {}),
    });
    return response;
  };
}
