/**
 * Wires the handler's parts from the environment: configuration (Razorpay's keys among it), the supabase-js
 * payment orders, and Razorpay's API (none without keys: the handler then answers 503).
 */
import { parseConfig } from "../_shared/config.ts";
import { createDatabaseClient } from "../_shared/database_client.ts";
import { jsonLogger, type Logger } from "../_shared/http/log.ts";
import { configuredProvider } from "../_shared/payments/configured_provider.ts";
import { supabasePaymentOrders } from "../_shared/payments/supabase_payment_orders.ts";
import type { StartPaymentDependencies } from "./handler.ts";

/** Parts a host (the local stack, a test) may supply instead of the defaults. */
export interface StartPaymentOverrides {
  clock?: () => Date;
  log?: Logger;
  /** The fetch supabase-js uses. */
  fetch?: typeof fetch;
}

/** Reads the environment once and builds everything the handler needs. */
export function loadStartPaymentDependencies(
  env: Record<string, string | undefined> = Deno.env.toObject(),
  overrides: StartPaymentOverrides = {},
): StartPaymentDependencies {
  const config = parseConfig(env);
  const clock = overrides.clock ?? (() => new Date());
  const client = createDatabaseClient(config.supabaseUrl, config.serviceKey, overrides.fetch);
  return {
    config,
    clock,
    payments: supabasePaymentOrders(client, clock),
    provider: configuredProvider(config),
    log: overrides.log ?? jsonLogger(),
  };
}
