/**
 * A local stand-in for the PostgREST route the functions use: `POST /rest/v1/rpc/<function>`.
 * As PostgREST (behind Supabase's gateway) does: the key or a user's JWT picks the role (request_role.ts), the
 * call runs in a transaction under `set local role`, so grants and RLS are real; named arguments come
 * from the JSON body; the function's JSON result is the body; errors have PostgREST's shape and status
 * (postgrest_status.ts).
 */
import type { LocalSigningKey } from "./auth_keys.ts";
import type { KeyRoles } from "./gateway_keys.ts";
import { queryAsRequest, requestRole } from "./request_role.ts";
import { databaseErrorResponse, jsonResponse, pgrstError } from "./postgrest_response.ts";
import type { SqlDatabase } from "./sql_database.ts";

export type { KeyRoles };

interface FunctionSignature {
  args: { name: string; type: string }[];
}

// JSON arguments travel as text: postgres.js would JSON-encode a string bound to a json parameter again.
function _isJson(type: string): boolean {
  return type === "jsonb" || type === "json";
}

/** Options of {@linkcode createRpcRoute}. */
export interface RpcRouteOptions {
  /** Verifies user access tokens (`request_role.ts`); without it every user token is refused. */
  signingKey?: LocalSigningKey;
  /** Told of every function call that reached the database. */
  onCall?: (fn: string) => void;
  /** Told of every call that failed with a SQLSTATE (the bench counts create_order's STORE_BUSY tries). */
  onFailure?: (fn: string, sqlstate: string) => void;
}

/** The RPC route over `db`. */
export function createRpcRoute(db: SqlDatabase, keys: KeyRoles, options: RpcRouteOptions = {}) {
  const { signingKey, onCall = () => {}, onFailure = () => {} } = options;
  const signatures = new Map<string, Promise<FunctionSignature | null>>();

  const signatureOf = (fn: string) => {
    let signature = signatures.get(fn);
    if (!signature) {
      signature = db.query<{ name: string; type: string }>(
        `select a.name, format_type(a.type, null) as type
         from pg_proc p
         cross join lateral unnest(p.proargnames, p.proargtypes::oid[]) with ordinality as a(name, type, n)
         where p.pronamespace = 'public'::regnamespace and p.proname = $1
         order by a.n`,
        [fn],
      ).then(async (args) => {
        if (args.length > 0) return { args };
        const exists = await db.query(
          "select 1 from pg_proc where pronamespace = 'public'::regnamespace and proname = $1",
          [fn],
        );
        return exists.length > 0 ? { args: [] } : null;
      });
      signatures.set(fn, signature);
      // a lookup that failed (database unreachable) is not remembered: the next call asks again
      signature.catch(() => signatures.delete(fn));
    }
    return signature;
  };

  return async function handleRpc(request: Request, fn: string): Promise<Response> {
    if (request.method !== "POST") {
      return pgrstError(405, "PGRST117", `Unsupported HTTP method: ${request.method}`);
    }
    const decision = await requestRole(request.headers, keys, signingKey);
    if ("status" in decision) return jsonResponse(decision.status, decision.body);
    const { role } = decision;
    if (!/^[a-z_][a-z0-9_]*$/.test(fn)) {
      return pgrstError(404, "PGRST202", `Could not find the function public.${fn}`);
    }

    let body: Record<string, unknown>;
    try {
      const text = await request.text();
      body = text ? JSON.parse(text) : {};
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
    } catch {
      return pgrstError(400, "PGRST102", "Empty or invalid json");
    }

    let signature: FunctionSignature | null;
    try {
      signature = await signatureOf(fn);
    } catch {
      return pgrstError(503, "PGRST001", "Database client error");
    }
    const names = Object.keys(body);
    const args = signature?.args.filter((arg) => names.includes(arg.name)) ?? [];
    if (!signature || args.length !== names.length) {
      return pgrstError(
        404,
        "PGRST202",
        `Could not find the function public.${fn}(${names.join(", ")}) in the schema cache`,
      );
    }
    const call = `select to_jsonb(public.${fn}(${
      args.map((arg, i) => `${arg.name} => $${i + 1}::${_isJson(arg.type) ? "text::" : ""}${arg.type}`).join(
        ", ",
      )
    }))::text as body`;
    const params = args.map((arg) => {
      const value = body[arg.name];
      return _isJson(arg.type) ? JSON.stringify(value) : value;
    });

    try {
      onCall(fn);
      const rows = await queryAsRequest<{ body: string | null }>(db, decision, call, params);
      return new Response(rows[0]?.body ?? "null", {
        status: 200,
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
    } catch (error) {
      const sqlstate = (error as { code?: unknown }).code;
      if (typeof sqlstate === "string") onFailure(fn, sqlstate);
      return databaseErrorResponse(error, role);
    }
  };
}
