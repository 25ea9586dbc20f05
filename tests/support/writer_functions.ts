/**
 * A catalogue of the functions in `public` and which of them write a table, read from pg_proc: a function
 * writes when its body inserts, updates, deletes, truncates or merges, or calls a function that does.
 * Trigger functions are left out: they run as whoever fired them and no role may call one.
 */
import type { SqlSession } from "../../local/sql_database.ts";

/** The tables that hold orders and what hangs off them: no API role writes a row of them directly. */
export const ORDER_TABLES = [
  "orders",
  "order_items",
  "order_status_history",
  "order_counters",
  "email_outbox",
  "payments",
  "idempotency_keys",
  "order_rate_limits",
  "payment_provider_orders",
  "refunds",
  "refund_events",
] as const;

/** One function of `public`, as the checks need it. */
export interface PublicFunction {
  name: string;
  /** name(argument types), as regprocedure prints it. */
  signature: string;
  body: string;
  securityDefiner: boolean;
  /** Its `set` clauses, e.g. `search_path=""`. */
  config: string[];
  owner: string;
  /** Whether the role may execute it (directly or through PUBLIC). */
  anon: boolean;
  authenticated: boolean;
  /** Whether PUBLIC holds EXECUTE on it. */
  public: boolean;
}

/** Every function and procedure of `public` except trigger functions and those an extension owns. */
export function publicFunctions(db: SqlSession): Promise<PublicFunction[]> {
  return db.query<PublicFunction>(
    `select p.proname as name, p.oid::regprocedure::text as signature, p.prosrc as body,
       p.prosecdef as "securityDefiner", coalesce(p.proconfig, '{}') as config,
       pg_get_userbyid(p.proowner) as owner,
       has_function_privilege('anon', p.oid, 'EXECUTE') as anon,
       has_function_privilege('authenticated', p.oid, 'EXECUTE') as authenticated,
       exists (
         select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
         where a.grantee = 0 and a.privilege_type = 'EXECUTE'
       ) as public
     from pg_proc p
     where p.pronamespace = 'public'::regnamespace
       and p.prokind in ('f', 'p')
       and p.prorettype <> 'trigger'::regtype
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
     order by 2`,
  );
}

// a statement that changes rows; comments are stripped first, so a comment saying "update" is no write
const _WRITE =
  /\b(insert\s+into|delete\s+from|truncate|merge\s+into)\b|\bupdate\s+(only\s+)?[\w."]+(\s+(as\s+)?\w+)?\s+set\b/i;

function _code(body: string): string {
  return body.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
}

/** Whether `fn` writes a table, itself or through a function of `all` that it calls as `public.<name>(`. */
export function isWriter(
  fn: Pick<PublicFunction, "name" | "body">,
  all: readonly Pick<PublicFunction, "name" | "body">[],
): boolean {
  const writers = new Set(all.filter((f) => _WRITE.test(_code(f.body))).map((f) => f.name));
  // callers of writers write too, to any depth
  for (let grew = true; grew;) {
    grew = false;
    for (const f of all) {
      if (writers.has(f.name)) continue;
      const calls = [..._code(f.body).matchAll(/\bpublic\.(\w+)\s*\(/g)].map((m) => m[1]);
      if (calls.some((name) => writers.has(name))) {
        writers.add(f.name);
        grew = true;
      }
    }
  }
  return writers.has(fn.name);
}

/** The functions of `all` that write a table. */
export function writerFunctions<T extends Pick<PublicFunction, "name" | "body">>(all: readonly T[]): T[] {
  return all.filter((fn) => isWriter(fn, all));
}
