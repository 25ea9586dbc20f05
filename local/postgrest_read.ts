/**
 * A local stand-in for PostgREST's read route, the subset supabase-js `.from(t).select(cols).eq(col, v)`
 * sends: `GET /rest/v1/<table>?select=<cols>&<col>=eq.<value>`, plus `order=<col>[.asc|.desc]` and
 * `limit=<n>`. The role comes as for every PostgREST request (`request_role.ts`): `anon` for a public key,
 * `service_role` for a secret one, `authenticated` with the user's claims for a user's access token. The
 * query runs under that role, so grants and row level security decide what it sees, as on Supabase.
 * Anything beyond the subset (embedded resources, other operators, counts, `single()`) is refused with a
 * 400 or 406 that says so, rather than answered differently from PostgREST. As on Supabase, no answer holds
 * more than `max_rows` of supabase/config.toml's [api] (1000) rows, whatever `limit` asks, and every answer
 * says which rows it holds in PostgREST's `Content-Range`: `0-999/*`, and a star for the range of none.
 */
import type { LocalSigningKey } from "./auth_keys.ts";
import type { KeyRoles } from "./gateway_keys.ts";
import { databaseErrorResponse, pgrstError } from "./postgrest_response.ts";
import { queryAsRequest, requestRole } from "./request_role.ts";
import type { SqlDatabase } from "./sql_database.ts";

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The most rows one read answers: `max_rows` of supabase/config.toml, which Supabase's PostgREST applies. */
export const MAX_ROWS = _maxRows(
  await Deno.readTextFile(new URL("../supabase/config.toml", import.meta.url)),
);

function _maxRows(toml: string): number {
  const api = /^\[api\]$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toml)?.[1] ?? "";
  const match = /^max_rows\s*=\s*(\d+)\s*$/m.exec(api);
  if (!match) throw new Error("supabase/config.toml has no max_rows in its [api] section");
  return Number(match[1]);
}
const ORDER_TERM = /^([a-z_][a-z0-9_]*)(?:\.(asc|desc))?$/;

/** A parsed read: columns, equality filters, order and limit, each checked; or why it is refused. */
export type ReadQuery =
  | {
    columns: string[] | "*";
    filters: [string, string][];
    order: [string, "asc" | "desc"][];
    limit: number | null;
  }
  | { refused: string };

/** Parses the query string of a read into the stand-in's subset. */
export function parseReadQuery(params: URLSearchParams): ReadQuery {
  const query = {
    columns: "*" as string[] | "*",
    filters: [] as [string, string][],
    order: [] as [string, "asc" | "desc"][],
    limit: null as number | null,
  };
  for (const [name, value] of params) {
    if (name === "select") {
      if (value === "*") continue;
      const columns = value.split(",");
      if (!columns.every((column) => IDENTIFIER.test(column))) {
        return { refused: `select: only * or a list of column names is served locally: got ${value}` };
      }
      query.columns = columns;
    } else if (name === "order") {
      for (const term of value.split(",")) {
        const match = ORDER_TERM.exec(term);
        if (!match) return { refused: `order: only <column>[.asc|.desc] is served locally: got ${term}` };
        query.order.push([match[1], (match[2] ?? "asc") as "asc" | "desc"]);
      }
    } else if (name === "limit") {
      if (!/^\d{1,9}$/.test(value)) return { refused: `limit must be a whole number: got ${value}` };
      query.limit = Number(value);
    } else if (IDENTIFIER.test(name) && value.startsWith("eq.")) {
      query.filters.push([name, value.slice(3)]);
    } else {
      return { refused: `${name}=${value}: only <column>=eq.<value> filters are served locally` };
    }
  }
  return query;
}

/**
 * The SQL of a parsed read of `table`, its values as parameters; the result is one JSON array as text and
 * its row count. At most `maxRows` rows, as PostgREST's `db-max-rows` caps `limit`.
 */
export function readSql(
  table: string,
  query: Exclude<ReadQuery, { refused: string }>,
  maxRows = MAX_ROWS,
): { text: string; params: string[] } {
  const columns = query.columns === "*" ? "*" : query.columns.map((column) => `"${column}"`).join(", ");
  const where = query.filters.map(([column], i) => `"${column}" = $${i + 1}`).join(" and ");
  const order = query.order.map(([column, direction]) => `"${column}" ${direction}`).join(", ");
  const limit = Math.min(query.limit ?? maxRows, maxRows);
  const text =
    `select coalesce(json_agg(r), '[]'::json)::text as body, count(*)::int as rows from (select ${columns} from public."${table}"${
      where ? ` where ${where}` : ""
    }${order ? ` order by ${order}` : ""} limit ${limit}) r`;
  return { text, params: query.filters.map(([, value]) => value) };
}

/** The read route over `db`; `signingKey` verifies user access tokens. */
export function createReadRoute(db: SqlDatabase, keys: KeyRoles, signingKey: LocalSigningKey) {
  return async function handleRead(request: Request, table: string): Promise<Response> {
    if (request.method !== "GET") {
      return pgrstError(
        405,
        "PGRST117",
        `Only GET is served locally on /rest/v1/<table>: got ${request.method}`,
      );
    }
    const decision = await requestRole(request.headers, keys, signingKey);
    if ("status" in decision) {
      return new Response(JSON.stringify(decision.body), {
        status: decision.status,
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
    }
    const profile = request.headers.get("accept-profile");
    if (profile && profile !== "public") {
      return pgrstError(406, "PGRST106", "The schema must be one of the following: public");
    }
    const accept = request.headers.get("accept");
    if (accept && !/^(application\/json|\*\/\*)(;|$)/.test(accept)) {
      return pgrstError(406, "PGRST107", `Only JSON arrays are served locally: Accept ${accept}`);
    }
    if (/count=/.test(request.headers.get("prefer") ?? "")) {
      return pgrstError(400, "PGRST100", "Counting rows (Prefer: count=…) is not served locally");
    }
    if (!IDENTIFIER.test(table)) {
      return pgrstError(404, "PGRST205", `Could not find the table 'public.${table}' in the schema cache`);
    }
    const query = parseReadQuery(new URL(request.url).searchParams);
    if ("refused" in query) return pgrstError(400, "PGRST100", query.refused);

    const { text, params } = readSql(table, query);
    try {
      const [{ body, rows }] = await queryAsRequest<{ body: string; rows: number }>(
        db,
        decision,
        text,
        params,
      );
      return new Response(body, {
        status: 200,
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Range": rows === 0 ? "*/*" : `0-${rows - 1}/*`,
        },
      });
    } catch (error) {
      return databaseErrorResponse(error, decision.role);
    }
  };
}
