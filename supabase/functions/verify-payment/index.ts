// The verify-payment Edge Function: wiring only. See handler.ts for what it does.
import { loadVerifyPaymentDependencies } from "./dependencies.ts";
import { verifyPaymentHandler } from "./handler.ts";

Deno.serve(verifyPaymentHandler(loadVerifyPaymentDependencies()));
