// The start-payment Edge Function: wiring only. See handler.ts for what it does.
import { loadStartPaymentDependencies } from "./dependencies.ts";
import { startPaymentHandler } from "./handler.ts";

Deno.serve(startPaymentHandler(loadStartPaymentDependencies()));
