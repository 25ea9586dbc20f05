/**
 * A local stand-in for the one PostgREST route the function uses: `POST /rest/v1/rpc/<function>`.
 * As PostgREST (behind Supabase's gateway) does: the key picks the role (gateway_keys.ts), the
 * call runs in a transaction under `set local role`, so grants and RLS are real; named arguments come
 * from the JSON body; the function's JSON result is the body; errors have PostgREST's shape and status
 * (postgrest_status.ts).
 */
import { type KeyRoles, roleForRequest } from "./gateway_keys.ts";
import { statusForSqlState } from "./postgrest_status.ts";
import type { SqlDatabase } from "./sql_database.ts";

export type { KeyRoles };

interface FunctionSignature {
  args: { name: string; type: string }[];
}

interface PostgresErrorLike {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

function _json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}

function _pgrstError(status: number, code: string, message: string, details: string | null = null): Response {
  return _json(status, { code, message, details, hint: null });
}

// JSON arguments travel as text: postgres.js would JSON-encode a string bound to a json parameter again.
function _isJson(type: string): boolean {
  return type === "jsonb" || type === "json";
}

/** The RPC route over `db`; `onCall` is told of every function call that reached the database. */
export function createRpcRoute(db: SqlDatabase, keys: KeyRoles, onCall: (fn: string) => void = () => {}) {
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
      return _pgrstError(405, "PGRST117", `Unsupported HTTP method: ${request.method}`);
    }
    const decision = roleForRequest(request.headers, keys);
    if ("refused" in decision) return _json(401, { message: decision.refused });
    const { role } = decision;
    if (!/^[a-z_][a-z0-9_]*$/.test(fn)) {
      return _pgrstError(404, "PGRST202", `Could not find the function public.${fn}`);
    }

    let body: Record<string, unknown>;
    try {
      const text = await request.text();
      body = text ? JSON.parse(text) : {};
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
    } catch {
      return _pgrstError(400, "PGRST102", "Empty or invalid json");
    }

    let signature: FunctionSignature | null;
    try {
      signature = await signatureOf(fn);
    } catch {
      return _pgrstError(503, "PGRST001", "Database client error");
    }
    const names = Object.keys(body);
    const args = signature?.args.filter((arg) => names.includes(arg.name)) ?? [];
    if (!signature || args.length !== names.length) {
      return _pgrstError(
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
      const rows = await db.queryAsRole<{ body: string | null }>(role, call, params);
      return new Response(rows[0]?.body ?? "null", {
        status: 200,
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
    } catch (error) {
      const pg = error as PostgresErrorLike;
      // a driver's own failure (ECONNREFUSED, CONNECTION_ENDED) is no SQLSTATE: the database is out of reach
      if (!pg.code || !/^[0-9A-Z]{5}$/.test(pg.code)) {
        return _pgrstError(503, "PGRST001", "Database client error");
      }
      return _json(statusForSqlState(pg.code, pg.message ?? "", role !== "anon"), {
        code: pg.code,
        message: pg.message ?? "",
        details: pg.detail ?? null,
        hint: pg.hint ?? null,
      });
    }
  };
}
