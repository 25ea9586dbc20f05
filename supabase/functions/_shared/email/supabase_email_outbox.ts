/**
 * The EmailOutbox over supabase-js: `claim_due_emails`, `prepare_email_sends`, `record_email_results` and
 * `dead_emails` through PostgREST rpc, their JSON answers checked before anything past this adapter sees them.
 */
import type { DatabaseClient } from "../database_client.ts";
import { internalError } from "../errors.ts";
import type {
  ClaimedEmails,
  ClaimOptions,
  DeadEmailReport,
  EmailOutbox,
  RecordedEmail,
  SupersededEmail,
} from "./email_outbox.ts";
import { EMAIL_KINDS, type EmailKind, type EmailResult, type OutboxEmail } from "./order_email.ts";

/**
 * An EmailOutbox calling the outbox's SQL functions, giving up on a call after `timeoutMs`; claims, the
 * preparations of sends and results carry the same deadline (`p_deadline`), so the database ends their
 * waits by then too.
 */
export function supabaseEmailOutbox(client: DatabaseClient, timeoutMs = 10_000): EmailOutbox {
  const deadline = () => new Date(Date.now() + timeoutMs).toISOString();
  /** Runs one typed rpc call with the time limit; its data, or an OrderError (INTERNAL_ERROR). */
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
    async claimDue(options: ClaimOptions): Promise<ClaimedEmails> {
      const data = await call("claim_due_emails", (signal) =>
        client.rpc("claim_due_emails", {
          p_batch_limit: options.batchLimit,
          p_alone_limit: options.aloneLimit,
          p_min_age_seconds: options.minAgeSeconds,
          p_stale_after_seconds: options.staleAfterSeconds,
          p_claim_ms: options.claimMs,
          p_run_ms: options.runMs ?? 0,
          p_deadline: deadline(),
        }).abortSignal(signal)) as Partial<ClaimedEmails> | null;
      return _claimed("claim_due_emails", data);
    },
    async prepareSend(emails: OutboxEmail[], batchKey?: string): Promise<ClaimedEmails> {
      if (emails.length === 0) return { emails: [], superseded: [] };
      const data = await call("prepare_email_sends", (signal) =>
        client.rpc("prepare_email_sends", {
          p_claims: emails.map(({ id, claimToken }) => ({ id, claimToken })),
          ...(batchKey ? { p_batch_key: batchKey } : {}),
          p_deadline: deadline(),
        }).abortSignal(signal));
      return _claimed("prepare_email_sends", data);
    },
    async recordResults(results: EmailResult[]): Promise<RecordedEmail[]> {
      if (results.length === 0) return [];
      const data = await call(
        "record_email_results",
        (signal) =>
          client.rpc("record_email_results", { p_results: results, p_deadline: deadline() }).abortSignal(
            signal,
          ),
      );
      if (!Array.isArray(data) || !data.every(_isRecordedEmail)) {
        throw internalError(new Error("record_email_results returned no list of recorded rows"));
      }
      return data;
    },
    async deadEmails(limit: number): Promise<DeadEmailReport> {
      const data = await call(
        "dead_emails",
        (signal) => client.rpc("dead_emails", { p_limit: limit }).abortSignal(signal),
      ) as
        | Partial<DeadEmailReport>
        | null;
      if (typeof data?.total !== "number" || !Array.isArray(data.emails)) {
        throw internalError(new Error("dead_emails returned no report"));
      }
      return { total: data.total, emails: data.emails };
    },
  };
}

/** A claim's or a preparation's answer, checked. */
function _claimed(fn: string, value: unknown): ClaimedEmails {
  const data = value as Partial<ClaimedEmails> | null;
  if (
    !Array.isArray(data?.emails) || !data.emails.every(_isOutboxEmail) ||
    !Array.isArray(data.superseded) || !data.superseded.every(_isSupersededEmail)
  ) {
    throw internalError(new Error(`${fn} returned no list of outbox messages`));
  }
  return { emails: data.emails, superseded: data.superseded };
}

function _isOutboxEmail(value: unknown): value is OutboxEmail {
  const row = value as Partial<OutboxEmail> | null;
  return typeof row === "object" && row !== null && typeof row.id === "string" &&
    typeof row.orderId === "string" && EMAIL_KINDS.includes(row.kind as EmailKind) &&
    typeof row.to === "string" && typeof row.attempts === "number" &&
    typeof row.claimToken === "string" && typeof row.payload === "object" && row.payload !== null;
}

function _isSupersededEmail(value: unknown): value is SupersededEmail {
  const row = value as Partial<SupersededEmail> | null;
  return typeof row === "object" && row !== null && typeof row.id === "string" &&
    typeof row.orderId === "string" && EMAIL_KINDS.includes(row.kind as EmailKind);
}

function _isRecordedEmail(value: unknown): value is RecordedEmail {
  const row = value as Partial<RecordedEmail> | null;
  return typeof row === "object" && row !== null && typeof row.id === "string" &&
    ["sent", "failed", "dead", "pending"].includes(row.status as string);
}
