/** Wires the handler's parts from the environment: configuration and the supabase-js tracking port. */
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { supabaseOrderTracking } from "../_shared/orders/supabase_order_tracking.ts";
import type { TrackOrderDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface TrackOrderOverrides {
  log?: Logger;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadTrackOrderDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: TrackOrderOverrides = {},
): TrackOrderDependencies {
  const config = parseConfig(env);
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);
  return {
    config,
    tracking: supabaseOrderTracking(client, config.databaseTimeoutMs),
    log: overrides.log ?? jsonLogger(),
  };
}
