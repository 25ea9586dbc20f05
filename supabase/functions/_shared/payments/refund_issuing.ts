/**
 * Issuing the refunds that are due, one job of the drain's run (contract: "The drain's run issues pending
 * refunds"), within the run's budget: claim what is due, and for each refund, while the budget lasts, first
 * list the payment's refunds at the gateway and adopt one whose receipt is our refund's id (and that has not
 * failed: a person may set a failed refund `pending` again to retry it), else create it with that receipt
 * (`speed: normal`, `notes.orderId`); record each result under its claim as it comes. So a run that died
 * between the gateway's answer and our commit, or whose answer was lost, never refunds twice: the next run
 * finds the refund by its receipt. Every call to the gateway ends within the run (its time limit is the
 * run's time left, at most PAYMENT_PROVIDER_TIMEOUT_MS); a hung call is an error, retried by a later run;
 * refunds claimed and not tried when the budget ends, or after three failures in a row (the gateway down),
 * are handed back. A refusal of one refund (the gateway answered and refused that request) says nothing
 * about the gateway, so it counts as a failed attempt of that refund but not towards the three: a refund
 * the gateway keeps refusing never stops the run before the refunds behind it (which the claim orders
 * before it on later runs, fewest attempts first). The buyer's refund e-mail of each refund the gateway took
 * comes back claimed, for the run to send.
 */
import type { OutboxEmail } from "../email/order_email.ts";
import { describeError } from "../http/log.ts";
import { isProviderRefusal, type PaymentProvider } from "./payment_provider.ts";
import type { ClaimedRefund, RecordedRefund, RefundResult, RefundStore } from "./refunds.ts";

/** The part of a run's budget the job takes its time from (the drain's RunBudget). */
export interface RefundRunBudget {
  /** Whether the run may still start work. */
  open(): boolean;
  /** How long a provider request started now may last, so that it ends within the run. */
  requestTimeoutMs(): number;
  /** How long a claim made now must hold: to the run's end. */
  claimMs(): number;
  /** Milliseconds since the run started. */
  elapsedMs(): number;
}

/** What the job needs: the refunds' store, the gateway (null: none configured), the budget, the log. */
export interface RefundIssuingDeps {
  refunds: RefundStore;
  provider: PaymentProvider | null;
  budget: RefundRunBudget;
  log: (event: Record<string, unknown>) => void;
  /** A refund whose last attempt failed waits this long × 2^(attempts - 1) (default 60 s). */
  minAgeSeconds?: number;
}

/** What one run did to refunds. No amounts, no buyer data. */
export interface RefundIssuingReport {
  /**
   * Refunds this run recorded as held by the gateway: created by it, or adopted (found under our receipt).
   * One the gateway took whose result the run could not record is not counted: the run that adopts it is.
   */
  issued: number;
  /** Of `issued`, those adopted. */
  adopted: number;
  /**
   * Attempts that failed (the gateway's error, refusal or silence, or a refund it reported failed at
   * once), each retried by a later run until the tenth.
   */
  failed: number;
  /** Claimed and handed back untried: the budget ended first, or the gateway failed three times in a row. */
  released: number;
}

/** Refunds claimed per round trip: few, since each costs the gateway two calls. */
const CLAIM_BATCH = 10;

/**
 * Failures in a row after which a run stops trying (the gateway is down or hanging): the rest wait for the
 * next run instead of spending this run's budget, which the e-mails share, on more time-outs. A refusal of
 * one refund is no such failure.
 */
export const FAILURES_BEFORE_PAUSE = 3;

/** A run's refunds: what it did, and the buyers' refund e-mails it claimed for the run to send. */
export interface IssuedRefunds {
  report: RefundIssuingReport;
  emails: OutboxEmail[];
}

/** Issues the due refunds until none is due or the budget ends; never throws for one refund's failure. */
export async function issueDueRefunds(deps: RefundIssuingDeps): Promise<IssuedRefunds> {
  const report: RefundIssuingReport = { issued: 0, adopted: 0, failed: 0, released: 0 };
  const emails: OutboxEmail[] = [];
  const provider = deps.provider;
  if (!provider) return { report, emails };
  let failuresInARow = 0;
  // the claim leaves out what this run tried by comparing the run's age with the database's clock, which a
  // claim that waited for its connection can defeat: a refund is tried at most once a run all the same
  const tried = new Set<string>();
  while (deps.budget.open() && failuresInARow < FAILURES_BEFORE_PAUSE) {
    let claimed: ClaimedRefund[];
    try {
      claimed = await deps.refunds.claimDue({
        limit: CLAIM_BATCH,
        minAgeSeconds: deps.minAgeSeconds ?? 60,
        claimMs: deps.budget.claimMs(),
        runMs: Math.floor(deps.budget.elapsedMs()),
      });
    } catch (error) {
      deps.log({ event: "refund.claim_failed", error: describeError(error) });
      break;
    }
    const again = claimed.filter((refund) => tried.has(refund.refundId));
    for (const refund of again) await _record(deps, refund, { kind: "released" });
    if (again.length === claimed.length) break;
    for (const refund of claimed.filter((refund) => !tried.has(refund.refundId))) {
      tried.add(refund.refundId);
      const { result, adopted, refused } = deps.budget.open() && failuresInARow < FAILURES_BEFORE_PAUSE
        ? await _issue(provider, refund, deps.budget)
        : { result: { kind: "released" } as const, adopted: false, refused: false };
      // the gateway answered (a refund, or a refusal of this one): it is up
      failuresInARow = result.kind === "released"
        ? failuresInARow
        : result.kind === "error" && !refused
        ? failuresInARow + 1
        : 0;
      const recorded = await _record(deps, refund, result);
      emails.push(...recorded?.emails ?? []);
      if (result.kind === "released") report.released++;
      else if (result.kind === "error" || recorded?.status === "failed") report.failed++;
      else if (recorded?.recorded && (recorded.status === "issued" || recorded.status === "processed")) {
        report.issued++;
        if (adopted) report.adopted++;
      }
    }
  }
  return { report, emails };
}

/** Adopt-before-create: the gateway's refund under our receipt, else a new one; an error as a value. */
async function _issue(
  provider: PaymentProvider,
  refund: ClaimedRefund,
  budget: RefundRunBudget,
): Promise<{ result: RefundResult; adopted: boolean; refused: boolean }> {
  if (refund.provider !== provider.name) {
    const error = `a payment through ${refund.provider}, which this service does not call`;
    return { result: { kind: "error", error }, adopted: false, refused: true };
  }
  try {
    const existing = (await provider.listRefunds(refund.providerPaymentId, {
      timeoutMs: budget.requestTimeoutMs(),
    })).find((candidate) => candidate.receipt === refund.refundId && candidate.status !== "failed");
    if (existing) {
      return {
        result: { kind: "issued", providerRefundId: existing.id, providerStatus: existing.status },
        adopted: true,
        refused: false,
      };
    }
    const created = await provider.createRefund(refund.providerPaymentId, {
      amountMinor: refund.amountMinor,
      speed: "normal",
      receipt: refund.refundId,
      notes: { orderId: refund.orderId },
    }, { timeoutMs: budget.requestTimeoutMs() });
    return {
      result: { kind: "issued", providerRefundId: created.id, providerStatus: created.status },
      adopted: false,
      refused: false,
    };
  } catch (error) {
    return {
      result: { kind: "error", error: _errorText(error) },
      adopted: false,
      refused: isProviderRefusal(error),
    };
  }
}

/** The gateway's own words for the refund's last_error (the adapter's error keeps them as its cause). */
function _errorText(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return (cause instanceof Error ? cause.message : String(cause)).slice(0, 500);
}

/**
 * Records a result; answers what was recorded (with the refund e-mail it claimed), or null when recording
 * failed, which is logged (the claim lapses, and a later run adopts the refund).
 */
async function _record(
  deps: RefundIssuingDeps,
  refund: ClaimedRefund,
  result: RefundResult,
): Promise<RecordedRefund | null> {
  try {
    const recorded = await deps.refunds.record(refund, result);
    if (!recorded.recorded) {
      // the claim lapsed and another run took the refund: its result is that run's to record
      if (result.kind !== "released") {
        deps.log({ event: "refund.result_ignored", refundId: refund.refundId, orderId: refund.orderId });
      }
    } else if (recorded.status === "failed") {
      deps.log({ event: "refund.failed", refundId: refund.refundId, orderId: refund.orderId });
    } else if (result.kind === "issued") {
      deps.log({ event: "refund.issued", refundId: refund.refundId, orderId: refund.orderId });
    } else if (result.kind === "error") {
      deps.log({
        event: "refund.attempt_failed",
        refundId: refund.refundId,
        orderId: refund.orderId,
        attempts: recorded.attempts,
        error: result.error,
      });
    }
    return recorded;
  } catch (error) {
    deps.log({ event: "refund.record_failed", refundId: refund.refundId, error: describeError(error) });
    return null;
  }
}
