/**
 * POST /update-order-status: a seller's move of one order through its lifecycle, as steps: read the body,
 * parse, move (one SQL call: the lifecycle, the history row, the refund a cancellation makes due, the
 * buyer's e-mail), answer (with the refund, when the move created one), send the e-mail after the answer. Service and secret keys only: the shared frame answers 401 to any other key, and does
 * the method, limits, errors and the log line.
 */
import type { Config } from "../_shared/config.ts";
import type { OutboxEmail } from "../_shared/email/order_email.ts";
import { describeError, type Logger } from "../_shared/http/log.ts";
import { parseJson } from "../_shared/http/request_body.ts";
import { type JsonReply, type RequestContext, serveFunction } from "../_shared/http/serve_function.ts";
import type { StatusMoveStore } from "../_shared/orders/status_move_store.ts";
import { parseStatusMoveRequest } from "./request_schema.ts";

/** What the handler is built from; tests hand in their own clock, store and e-mail sender. */
export interface UpdateOrderStatusDependencies {
  config: Pick<Config, "apiKeys" | "allowedOrigins" | "databaseTimeoutMs">;
  clock: () => Date;
  moves: StatusMoveStore;
  /** Sends a move's claimed e-mail; runs after the response, inside `waitUntil`. */
  sendEmails: (emails: OutboxEmail[]) => Promise<void>;
  /** Keeps background work alive after the response (EdgeRuntime.waitUntil on Supabase). */
  waitUntil: (work: Promise<unknown>) => void;
  log: Logger;
  newRequestId?: () => string;
}

/** Builds the update-order-status handler: a plain `(Request, ConnectionInfo?) => Promise<Response>`. */
export function updateOrderStatusHandler(deps: UpdateOrderStatusDependencies) {
  return serveFunction({
    name: "update_order_status",
    methods: ["POST"],
    access: "service",
    config: deps.config,
    log: deps.log,
    newRequestId: deps.newRequestId,
    handle: (context) => _updateOrderStatus(context, deps),
  });
}

async function _updateOrderStatus(
  context: RequestContext,
  deps: UpdateOrderStatusDependencies,
): Promise<JsonReply> {
  const move = parseStatusMoveRequest(parseJson(await context.readBody()));
  const deadline = new Date(deps.clock().getTime() + deps.config.databaseTimeoutMs);
  const result = await deps.moves.moveOrderStatus(move, { deadline });
  const { orderId, orderNumber, status, allowed, changed, refund } = result;
  context.annotate({ orderId, status, changed, refundId: refund?.refundId });

  if (result.emails.length > 0) {
    deps.waitUntil(
      deps.sendEmails(result.emails).catch((error) =>
        deps.log({
          event: "status_email_failed",
          requestId: context.requestId,
          orderId,
          ...describeError(error),
        })
      ),
    );
  }
  return {
    status: 200,
    body: {
      success: true,
      orderId,
      orderNumber,
      status,
      allowed,
      changed,
      ...(refund ? { refund: { amount: refund.amount, status: refund.status } } : {}),
    },
  };
}
