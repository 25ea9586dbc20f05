// The update-order-status Edge Function: wiring only. See handler.ts for what it does.
import { loadStatusDependencies } from "./dependencies.ts";
import { updateOrderStatusHandler } from "./handler.ts";

Deno.serve(updateOrderStatusHandler(loadStatusDependencies()));
