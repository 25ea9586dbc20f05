/**
 * The PostgREST stand-in alone, as its own process: only `POST /rest/v1/rpc/<fn>` (local/postgrest_rpc.ts)
 * over PostgreSQL at DATABASE_URL with a pool of POOL_SIZE (default 8, as local/dev_server.ts), keys
 * from SUPABASE_ANON_KEY and SUPABASE_SERVICE_ROLE_KEY, and `GET /__stats` (calls per function, and the
 * create_order calls refused with STORE_BUSY, which the function makes again) for the bench. Listens on 127.0.0.1:$PORT. The bench runs the function in another process against it.
 */
import { openPostgres } from "../local/open_database.ts";
import { createRpcRoute } from "../local/postgrest_rpc.ts";
import { STORE_BUSY_SQLSTATE } from "../supabase/functions/_shared/orders/database_errors.ts";

const env = Deno.env.toObject();
const db = openPostgres(env.DATABASE_URL, Number(env.POOL_SIZE ?? 8));
const rpcCalls = new Map<string, number>();
let storeBusy = 0;
const rpc = createRpcRoute(db, {
  anon: [env.SUPABASE_ANON_KEY],
  serviceRole: [env.SUPABASE_SERVICE_ROLE_KEY],
}, {
  onCall: (fn) => rpcCalls.set(fn, (rpcCalls.get(fn) ?? 0) + 1),
  onFailure: (fn, sqlstate) => {
    if (fn === "create_order" && sqlstate === STORE_BUSY_SQLSTATE) storeBusy++;
  },
});

Deno.serve({ hostname: "127.0.0.1", port: Number(env.PORT), onListen: () => {} }, (request) => {
  const { pathname } = new URL(request.url);
  const match = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(pathname);
  if (match) return rpc(request, match[1]);
  if (pathname === "/__stats" && request.method === "GET") {
    return Response.json({ rpcCalls: Object.fromEntries(rpcCalls), storeBusy });
  }
  return Response.json({ message: "no route" }, { status: 404 });
});
