// The create-order Edge Function: wiring only. See handler.ts for what it does.
import { loadDependencies } from "./dependencies.ts";
import { createOrderHandler } from "./handler.ts";

Deno.serve(createOrderHandler(loadDependencies()));
