// The payment-webhook Edge Function: wiring only. See handler.ts for what it does.
import { loadWebhookDependencies } from "./dependencies.ts";
import { paymentWebhookHandler } from "./handler.ts";

Deno.serve(paymentWebhookHandler(loadWebhookDependencies()));
