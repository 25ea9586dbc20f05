/**
 * What `deno task dev` prints once it serves: where everything is, the keys, and a curl that works as
 * printed. With LEGACY_API_KEYS=disabled the stack refuses the anon and service-role keys, so it says so
 * and prints the publishable keys instead, and the curl carries the publishable key. A secret is printed
 * only when it is the stack's own local default, which guards nothing; one the environment gives (the
 * service-role key, the secret keys, Razorpay's key and webhook secrets) is named by its variable, never
 * shown: a terminal's output is shared and logged. Pure.
 */
import { SEED_EXAMPLE_ORDER } from "./example_order.ts";
import { describeRateLimits } from "./dev_rate_limits.ts";
import type { LocalStack } from "./stack.ts";

/** The banner of `stack`, started over `database` with `env`. */
export function devBanner(
  stack: Pick<
    LocalStack,
    | "url"
    | "anonKey"
    | "serviceKey"
    | "publicKey"
    | "legacyKeysDisabled"
    | "razorpay"
    | "razorpayWebhookSecret"
  >,
  env: Record<string, string | undefined>,
  database: "pglite" | "postgres",
): string {
  const webhookSecret = env.RAZORPAY_WEBHOOK_SECRET ? "RAZORPAY_WEBHOOK_SECRET" : stack.razorpayWebhookSecret;
  const disabled = "disabled (LEGACY_API_KEYS=disabled): refused by the stack";
  const drainTask = `${env.PORT ? `PORT=${env.PORT} ` : ""}npx -y deno@2.9.6 task outbox${
    stack.legacyKeysDisabled ? " with SUPABASE_SECRET_KEYS as here" : ""
  }`;
  return `create-order local stack
  database:  ${database === "postgres" ? "PostgreSQL at DATABASE_URL" : "PGlite in .local/db/"}
  e-mail:    ${env.RESEND_API_KEY ? "Resend" : "files in .local/outbox/"}
  limits:    ${describeRateLimits(env)}
  function:  ${stack.url}/functions/v1/create-order
  moves:     ${stack.url}/functions/v1/update-order-status (service key)
  payments:  ${stack.url}/functions/v1/start-payment and ${stack.url}/functions/v1/verify-payment (any key)
  webhook:   ${stack.url}/functions/v1/payment-webhook (signed with ${webhookSecret})
  razorpay:  ${_describeRazorpay(stack, env)}
  drain:     ${stack.url}/functions/v1/outbox-drain (service key; ${drainTask} runs the same drain)
  tracking:  ${stack.url}/functions/v1/track-order?order=<orderId>&token=<token>
  storefront: ${stack.url}/storefront/ (the example checkout, on this stack's keys and the seed's store)
  order page: ${stack.url}/track?order=<orderId>&token=<token> (${
    env.ORDER_TRACKING_URL
      ? "buyers' e-mails link to ORDER_TRACKING_URL instead"
      : "buyers' e-mails link here"
  })
  rest:      ${stack.url}/rest/v1/rpc/<function> and GET ${stack.url}/rest/v1/<table>?select=…&<column>=eq.<value>
  auth:      ${stack.url}/auth/v1/.well-known/jwks.json (npx -y deno@2.9.6 task token <e-mail> signs in a local user)
  anon key:          ${stack.legacyKeysDisabled ? disabled : stack.anonKey}
  service_role key:  ${
    stack.legacyKeysDisabled
      ? disabled
      : env.SUPABASE_SERVICE_ROLE_KEY
      ? "SUPABASE_SERVICE_ROLE_KEY (not printed)"
      : stack.serviceKey
  }${env.SUPABASE_PUBLISHABLE_KEYS ? `\n  publishable keys:  ${env.SUPABASE_PUBLISHABLE_KEYS}` : ""}${
    env.SUPABASE_SECRET_KEYS ? `\n  secret keys:       ${_describeSecretKeys(env.SUPABASE_SECRET_KEYS)}` : ""
  }

Try it:
curl -i ${stack.url}/functions/v1/create-order \\
  -H 'Authorization: Bearer ${stack.publicKey}' \\
  -H 'Content-Type: application/json' \\
  -d '${JSON.stringify(SEED_EXAMPLE_ORDER)}'
`;
}

/** Which Razorpay the payment functions call, and the fake's keys when it is the fake. */
function _describeRazorpay(
  stack: Pick<LocalStack, "razorpay">,
  env: Record<string, string | undefined>,
): string {
  const fake = stack.razorpay;
  if (!fake) return `RAZORPAY_API_URL (${env.RAZORPAY_API_URL}) with RAZORPAY_KEY_ID`;
  return `a fake on ${fake.url} (checkout script ${fake.checkoutScriptUrl})
    key id:          ${fake.keyId}
    key secret:      ${env.RAZORPAY_KEY_SECRET ? "RAZORPAY_KEY_SECRET" : fake.keySecret}
    webhook secret:  ${
    env.RAZORPAY_WEBHOOK_SECRET ? "RAZORPAY_WEBHOOK_SECRET" : fake.webhookSecret
  } (its webhooks go to payment-webhook)`;
}

/** The secret keys' names, from SUPABASE_SECRET_KEYS (a JSON object of keys), never their values. */
function _describeSecretKeys(value: string): string {
  let names: string[] = [];
  try {
    const keys: unknown = JSON.parse(value);
    if (typeof keys === "object" && keys !== null && !Array.isArray(keys)) names = Object.keys(keys);
  } catch {
    // dev refuses keys that are no JSON object before it prints anything: nothing to name here
  }
  return `SUPABASE_SECRET_KEYS${names.length > 0 ? ` (${names.join(", ")})` : ""} (not printed)`;
}
