// The track-order Edge Function: wiring only. See handler.ts for what it does.
import { loadTrackOrderDependencies } from "./dependencies.ts";
import { trackOrderHandler } from "./handler.ts";

Deno.serve(trackOrderHandler(loadTrackOrderDependencies()));
