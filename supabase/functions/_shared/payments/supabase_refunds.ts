/**
 * The RefundStore over supabase-js: `claim_due_refunds`, `record_refund_result`, `failed_refunds` and
 * `record_refund_event` through PostgREST rpc, their JSON answers checked before anything past this adapter
 * sees them.
 */
import type { DatabaseClient } from "../database_client.ts";
import { internalError } from "../errors.ts";
import { callDatabase } from "../orders/database_call.ts";
import {
  type ClaimedRefund,
  type FailedRefunds,
  type RecordedRefund,
  type RefundEventResult,
  type RefundStore,
} from "./refunds.ts";

/**
 * A RefundStore calling the refunds' SQL functions: the drain's calls give up after `timeoutMs`, the
 * webhook's event at its deadline (by `clock`), as every request's call does.
 */
export function supabaseRefunds(
  client: DatabaseClient,
  options: { timeoutMs?: number; clock?: () => Date } = {},
): RefundStore {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? (() => new Date());

  async function call(
    fn: string,
    request: (signal: AbortSignal) => PromiseLike<{ data: unknown; error: unknown }>,
  ): Promise<unknown> {
    let result;
    try {
      result = await request(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw internalError(error, `${fn} failed`);
    }
    if (result.error) throw internalError(result.error, `${fn} failed`);
    return result.data;
  }

  return {
    async claimDue(claim): Promise<ClaimedRefund[]> {
      const data = await call("claim_due_refunds", (signal) =>
        client.rpc("claim_due_refunds", {
          p_limit: claim.limit,
          p_min_age_seconds: claim.minAgeSeconds,
          p_claim_ms: claim.claimMs,
          p_run_ms: claim.runMs,
        }).abortSignal(signal));
      if (!Array.isArray(data) || !data.every(_isClaimedRefund)) {
        throw internalError(new Error("claim_due_refunds returned no list of refunds"));
      }
      return data;
    },
    async record(refund, result): Promise<RecordedRefund> {
      const data = await call("record_refund_result", (signal) =>
        client.rpc("record_refund_result", {
          p_refund_id: refund.refundId,
          p_claim_token: refund.claimToken,
          ...(result.kind === "issued"
            ? { p_provider_refund_id: result.providerRefundId, p_provider_status: result.providerStatus }
            : result.kind === "error"
            ? { p_error: result.error }
            : { p_release: true }),
        }).abortSignal(signal)) as Partial<RecordedRefund> | null;
      if (typeof data?.recorded !== "boolean" || typeof data.refundId !== "string") {
        throw internalError(new Error("record_refund_result returned no result"));
      }
      return data as RecordedRefund;
    },
    async failedRefunds(limit): Promise<FailedRefunds> {
      const data = await call(
        "failed_refunds",
        (signal) => client.rpc("failed_refunds", { p_limit: limit }).abortSignal(signal),
      ) as Partial<FailedRefunds> | null;
      if (typeof data?.total !== "number" || !Array.isArray(data.refunds)) {
        throw internalError(new Error("failed_refunds returned no report"));
      }
      return {
        total: data.total,
        refunds: data.refunds.map(({ refundId, orderId }) => ({ refundId, orderId })),
      };
    },
    async recordEvent(event, { deadline }): Promise<RefundEventResult> {
      const data = await callDatabase(
        (signal) =>
          client.rpc("record_refund_event", {
            p_provider: event.provider,
            p_event_id: event.eventId,
            p_provider_payment_id: event.providerPaymentId,
            p_provider_refund_id: event.providerRefundId,
            // no receipt: matched by the gateway's id alone ("" is no refund id of ours)
            p_receipt: event.receipt ?? "",
            p_status: event.status,
            p_deadline: deadline.toISOString(),
          }).abortSignal(signal),
        deadline,
        clock(),
      ) as Partial<RefundEventResult> | null;
      if (
        typeof data?.found !== "boolean" || typeof data.changed !== "boolean" ||
        typeof data.replayed !== "boolean"
      ) {
        throw internalError(new Error("record_refund_event returned no result"));
      }
      return data as RefundEventResult;
    },
  };
}

// The shape, not every field: the SQL function builds it, and its own tests pin the fields.
function _isClaimedRefund(data: unknown): data is ClaimedRefund {
  const refund = data as Partial<ClaimedRefund> | null;
  return typeof refund === "object" && refund !== null && typeof refund.refundId === "string" &&
    typeof refund.providerPaymentId === "string" && typeof refund.amountMinor === "number" &&
    typeof refund.claimToken === "string";
}
