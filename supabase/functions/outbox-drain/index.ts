// The outbox-drain Edge Function: wiring only. See handler.ts for what it does.
import { loadDrainDependencies } from "./dependencies.ts";
import { outboxDrainHandler } from "./handler.ts";

Deno.serve(outboxDrainHandler(loadDrainDependencies()));
