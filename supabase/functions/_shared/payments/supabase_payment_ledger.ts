/** The PaymentLedger over supabase-js: one `rpc("confirm_payment")` per event, unwrapped into our types. */
import type { DatabaseClient } from "../database_client.ts";
import { internalError } from "../errors.ts";
import { callDatabase } from "../orders/database_call.ts";
import {
  type ConfirmationResult,
  PAYMENT_OUTCOMES,
  type PaymentConfirmation,
  type PaymentLedger,
} from "./payment_confirmation.ts";

/** A PaymentLedger calling confirm_payment through PostgREST, with the deadline rule of the other calls. */
export function supabasePaymentLedger(
  client: DatabaseClient,
  clock: () => Date = () => new Date(),
): PaymentLedger {
  return {
    async confirmPayment(confirmation: PaymentConfirmation, { deadline }): Promise<ConfirmationResult> {
      const now = clock();
      const data = await callDatabase(
        (signal) =>
          client.rpc("confirm_payment", {
            p_order_id: confirmation.orderId ?? "",
            p_amount_minor: confirmation.amountMinor,
            p_currency: confirmation.currency,
            p_provider: confirmation.provider,
            p_provider_payment_id: confirmation.providerPaymentId,
            p_event_id: confirmation.eventId,
            p_deadline: deadline.toISOString(),
            p_method: confirmation.method ?? undefined,
            p_provider_order_id: confirmation.providerOrderId ?? undefined,
          }).abortSignal(signal),
        deadline,
        now,
      );
      if (!_isConfirmationResult(data)) throw internalError(new Error("confirm_payment returned no result"));
      return data;
    },
  };
}

// The shape, not every field: the SQL function builds it, and its own tests pin the fields.
function _isConfirmationResult(data: unknown): data is ConfirmationResult {
  const result = data as Partial<ConfirmationResult> | null;
  return typeof result === "object" && result !== null && typeof result.replayed === "boolean" &&
    PAYMENT_OUTCOMES.includes(result.outcome as never) && typeof result.refundDue === "boolean" &&
    Array.isArray(result.emails);
}
