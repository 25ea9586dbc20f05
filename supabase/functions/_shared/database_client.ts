/** The supabase-js client the functions reach the database with, typed by the generated database types. */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import type { Database } from "./database.types.ts";

/** supabase-js over our schema: rpc names, arguments and results are checked against the migrations. */
export type DatabaseClient = SupabaseClient<Database>;

/** A client for `key` (the service or secret key) that keeps no session; `fetch` replaces the global one. */
export function createDatabaseClient(
  url: string,
  key: string,
  fetch?: typeof globalThis.fetch,
): DatabaseClient {
  return createClient<Database>(url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: fetch ? { fetch } : undefined,
  });
}
