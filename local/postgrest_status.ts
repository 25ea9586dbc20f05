/**
 * PostgREST's HTTP status for a PostgreSQL error, as its own source maps it (`mapSQLtoHTTP` in
 * `src/library/PostgREST/Error.hs`; the table in its docs, `docs/references/errors.rst`, "HTTP Status Codes").
 * The order of the rows matters: an exact code wins over its class only where PostgREST lists it first.
 */

/** One row of the table: an exact SQLSTATE or a two-character class, and its status. */
interface _Row {
  match: string;
  status: number;
}

// In PostgREST's order. Rows that depend on the message or the role are handled in the function below.
const _ROWS: _Row[] = [
  { match: "08", status: 503 }, // connection exception
  { match: "09", status: 500 }, // triggered action exception
  { match: "0L", status: 403 }, // invalid grantor
  { match: "0P", status: 403 }, // invalid role specification
  { match: "23503", status: 409 }, // foreign key violation
  { match: "23505", status: 409 }, // unique violation
  { match: "25006", status: 405 }, // read only sql transaction
  { match: "25", status: 500 }, // invalid transaction state
  { match: "28", status: 403 }, // invalid authorization specification
  { match: "2D", status: 500 }, // invalid transaction termination
  { match: "38", status: 500 }, // external routine exception
  { match: "39", status: 500 }, // external routine invocation exception
  { match: "3B", status: 500 }, // savepoint exception
  { match: "40", status: 500 }, // transaction rollback: 40001 serialization failure, 40P01 deadlock
  { match: "53400", status: 500 }, // configuration limit exceeded
  { match: "53", status: 503 }, // insufficient resources
  { match: "54", status: 500 }, // program limit exceeded
  { match: "55", status: 500 }, // object not in prerequisite state
  { match: "57P01", status: 503 }, // admin shutdown: the server is going away
  { match: "57", status: 500 }, // operator intervention (57014 statement timeout, ...)
  { match: "58", status: 500 }, // system error
  { match: "F0", status: 500 }, // configuration file error
  { match: "HV", status: 500 }, // foreign data wrapper error
  { match: "P0001", status: 400 }, // a plain `raise exception`
  { match: "P0", status: 500 }, // other PL/pgSQL errors
  { match: "XX", status: 500 }, // internal error
  { match: "42P01", status: 404 }, // undefined table
  { match: "42P17", status: 500 }, // infinite recursion
];

/**
 * The HTTP status PostgREST answers for SQLSTATE `code` with `message`; `authenticated` is whether the
 * request's role is other than the anonymous one (a 42501 is then 403, else 401). Anything unlisted,
 * including our own `OC…` codes, is 400.
 */
export function statusForSqlState(code: string, message: string, authenticated: boolean): number {
  // rows PostgREST decides by message or role, before the classes that would otherwise catch them
  if (code === "21000") return message.endsWith("requires a WHERE clause") ? 400 : 500;
  if (code === "22023") return message.startsWith("role") && message.endsWith("does not exist") ? 401 : 400;
  if (code === "42883") return message.startsWith("function xmlagg(") ? 406 : 404;
  if (code === "42501") return authenticated ? 403 : 401;
  if (code.startsWith("PT")) {
    const status = Number(code.slice(2));
    return Number.isInteger(status) && status >= 100 && status <= 599 ? status : 500;
  }
  for (const row of _ROWS) {
    if (row.match.length === 5 ? code === row.match : code.startsWith(row.match)) return row.status;
  }
  return 400;
}
