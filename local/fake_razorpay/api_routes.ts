/**
 * The fake Razorpay's API routes, on Razorpay's documented paths: each request is matched to its operation
 * (the name a failure switch targets) and a step that answers it as Razorpay would, from the books.
 */
import { FakeLedger, RazorpayRefusal } from "./fake_ledger.ts";

/** The API calls a failure switch can target. */
export type FakeOperation =
  | "orders.create"
  | "orders.fetch"
  | "payments.fetch"
  | "payments.capture"
  | "refunds.list"
  | "refunds.create"
  | "refunds.fetch";

/** A matched call: what it is, its body, and the step that does it. */
export interface ApiCall {
  operation: FakeOperation;
  body: unknown;
  run: () => Response;
}

/** Razorpay's error body. */
export function razorpayError(status: number, description: string, field: string | null = null): Response {
  const server = status >= 500;
  return Response.json({
    error: {
      code: server ? "SERVER_ERROR" : "BAD_REQUEST_ERROR",
      description,
      source: server ? "internal" : "business",
      step: "payment_initiation",
      reason: server ? "server_error" : "input_validation_failed",
      metadata: {},
      field,
    },
  }, { status });
}

function _answer(result: object | RazorpayRefusal | null): Response {
  if (result === null) return razorpayError(400, "The id provided does not exist");
  if (result instanceof RazorpayRefusal) return razorpayError(400, result.description, result.field);
  return Response.json(result);
}

const _ROUTES: [string, RegExp, FakeOperation][] = [
  ["POST", /^\/v1\/orders$/, "orders.create"],
  ["GET", /^\/v1\/orders\/([^/]+)$/, "orders.fetch"],
  ["GET", /^\/v1\/payments\/([^/]+)$/, "payments.fetch"],
  ["POST", /^\/v1\/payments\/([^/]+)\/capture$/, "payments.capture"],
  ["GET", /^\/v1\/payments\/([^/]+)\/refunds$/, "refunds.list"],
  ["POST", /^\/v1\/payments\/([^/]+)\/refund$/, "refunds.create"],
  ["GET", /^\/v1\/payments\/([^/]+)\/refunds\/([^/]+)$/, "refunds.fetch"],
];

/** The call `request` makes, or null for a path Razorpay's API does not have. */
export async function matchApiCall(ledger: FakeLedger, request: Request): Promise<ApiCall | null> {
  const url = new URL(request.url);
  for (const [method, pattern, operation] of _ROUTES) {
    const match = request.method === method ? pattern.exec(url.pathname) : null;
    if (!match) continue;
    const [id, second] = match.slice(1).map(decodeURIComponent);
    const body = method === "POST" ? await request.json().catch(() => null) : null;
    const input = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    const run = (): Response => {
      switch (operation) {
        case "orders.create":
          return _answer(ledger.createOrder(input));
        case "orders.fetch":
          return _answer(ledger.orders.get(id) ?? null);
        case "payments.fetch":
          return _answer(ledger.payments.get(id) ?? null);
        case "payments.capture":
          return _answer(ledger.capturePayment(id, input));
        case "refunds.list": {
          const items = ledger.listRefunds(id, Number(url.searchParams.get("count") ?? 10) || 10);
          return _answer(items && { entity: "collection", count: items.length, items });
        }
        case "refunds.create":
          return _answer(ledger.createRefund(id, input));
        case "refunds.fetch": {
          const refund = ledger.refunds.get(second);
          return _answer(refund?.payment_id === id ? refund : null);
        }
      }
    };
    return { operation, body, run };
  }
  return null;
}
