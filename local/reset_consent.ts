/**
 * When `deno task db:reset` may drop a database's public schema without being told `--yes`: only when
 * nothing can be lost, that is a database on this machine that holds nothing yet, or one the test suite
 * made for itself. Anything else (a teammate's database, a project's, one with a day's orders) is dropped
 * only on an explicit `--yes`.
 */
import type { SqlSession } from "./sql_database.ts";

/** How the names of the test suite's databases begin (tests/support/databases.ts). */
export const TEST_DATABASE_PREFIX = "create_order_test_";

/** Whether `name` is one the test suite gives its databases: the prefix, a Date.now() and 8 hex digits. */
export function isTestDatabaseName(name: string): boolean {
  return new RegExp(`^${TEST_DATABASE_PREFIX}\\d{13}_[0-9a-f]{8}$`).test(name);
}

/** What the decision needs to know about the database. */
export interface ResetTarget {
  url: URL;
  /** The tables, views and sequences of its public schema, by name. */
  publicRelations: string[];
  /** How many functions its public schema holds. */
  publicFunctions: number;
}

/** The relations and functions of `public`, which a reset drops. */
export async function inspectResetTarget(db: SqlSession, url: URL): Promise<ResetTarget> {
  const relations = await db.query<{ name: string }>(
    `select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') order by 1`,
  );
  const [{ n }] = await db.query<{ n: number }>(
    `select count(*)::int as n from pg_proc p join pg_namespace s on s.oid = p.pronamespace
     where s.nspname = 'public'`,
  );
  return { url, publicRelations: relations.map((row) => row.name), publicFunctions: n };
}

/** Whether `url` names a server on this machine (no host at all is a Unix socket here). */
export function isLocalDatabase(url: URL): boolean {
  return ["", "127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

function _databaseName(url: URL): string {
  return decodeURIComponent(url.pathname.slice(1));
}

/** `url` as the command to type again names it: in shell quotes, any password as `<password>`. */
function _typedUrl(url: URL): string {
  const user = url.username ? `${url.username}${url.password ? ":<password>" : ""}@` : "";
  return `'${url.protocol}//${user}${url.host}${url.pathname}${url.search}'`;
}

/**
 * Null when the reset may go ahead, else the sentence that asks for `--yes`: naming the database, where
 * it is and what it holds.
 */
export function resetRefusal(target: ResetTarget, yes: boolean): string | null {
  if (yes) return null;
  const name = _databaseName(target.url);
  if (isTestDatabaseName(name)) return null;
  const empty = target.publicRelations.length === 0 && target.publicFunctions === 0;
  if (empty && isLocalDatabase(target.url)) return null;
  const where = target.url.hostname || "a local socket";
  const count = target.publicRelations.length;
  const holds = count > 0
    ? `${target.publicRelations.slice(0, 4).join(", ")}${count > 4 ? ", …" : ""} (${
      count === 1 ? "1 table, view or sequence" : `${count} tables, views and sequences`
    })`
    : target.publicFunctions === 1
    ? "1 function"
    : `${target.publicFunctions} functions`;
  const reason = empty ? "it is not on this machine" : `its public schema holds ${holds}`;
  return `db:reset: ${name || "the database"} on ${where} would lose its public schema and every row in it ` +
    `(${reason}). If that is what you want, run it again with --yes: DATABASE_URL=${
      _typedUrl(target.url)
    } npx -y deno@2.9.6 task db:reset --yes`;
}
