/**
 * `deno task dev`: the local stack on http://127.0.0.1:${PORT:-54321}, over PostgreSQL at DATABASE_URL
 * or an embedded PGlite kept in .local/db/ (created, migrated and seeded on first start).
 * E-mail goes to Resend when RESEND_API_KEY is set, else to files in .local/outbox/. Payments go to the
 * Razorpay at RAZORPAY_API_URL when it is set, else to the fake Razorpay it serves beside the stack.
 */
import type { Mailer } from "../supabase/functions/_shared/email/mailer.ts";
import { openPglite } from "./open_database.ts";
import { connectPostgresOrExit } from "./database_connection.ts";
import { loadOrCreateSigningKey } from "./auth_keys.ts";
import { startLocalStack } from "./stack.ts";
import { SEED_EXAMPLE_ORDER } from "./example_order.ts";
import { describeRateLimits, withDevRateLimits } from "./dev_rate_limits.ts";
import { readMigrations } from "./migrate.ts";
import { describeMissingMigrations, missingMigrations } from "./migration_status.ts";
import { DataDirInUseError } from "./data_dir_lock.ts";
import type { SqlDatabase } from "./sql_database.ts";

const env = withDevRateLimits(Deno.env.toObject());
const port = Number(env.PORT ?? 54321);
const db = env.DATABASE_URL
  ? await connectPostgresOrExit("dev", env.DATABASE_URL, 8)
  : await _openLocalPglite();
const missing = await missingMigrations(db);
if (missing.length > 0) {
  console.error(describeMissingMigrations(missing, (await readMigrations()).length, db.kind));
  await db.close();
  Deno.exit(2);
}
const mailer = env.RESEND_API_KEY
  ? undefined
  : async (): Promise<Mailer> =>
    (await import("./file_mailer.ts")).createFileMailer({ dir: ".local/outbox" });

// one key for the server and `deno task token`: a token minted now still verifies after a restart
const signingKey = await loadOrCreateSigningKey();
// locally a refund is processed a few seconds after it is issued, as Razorpay's test mode does it
const stack = await startLocalStack({
  db,
  port,
  hostname: "127.0.0.1",
  env,
  mailer,
  signingKey,
  // the fake on the next port (54322 by default), so the README's curls can name it
  fakeRazorpay: { port: port + 1, settleRefundsAfterMs: 3_000 },
});

const webhookSecret = env.RAZORPAY_WEBHOOK_SECRET ? "RAZORPAY_WEBHOOK_SECRET" : stack.razorpayWebhookSecret;
console.log(`create-order local stack
  database:  ${db.kind === "postgres" ? "PostgreSQL at DATABASE_URL" : "PGlite in .local/db/"}
  e-mail:    ${env.RESEND_API_KEY ? "Resend" : "files in .local/outbox/"}
  limits:    ${describeRateLimits(env)}
  function:  ${stack.url}/functions/v1/create-order
  moves:     ${stack.url}/functions/v1/update-order-status (service key)
  payments:  ${stack.url}/functions/v1/start-payment and ${stack.url}/functions/v1/verify-payment (any key)
  webhook:   ${stack.url}/functions/v1/payment-webhook (signed with ${webhookSecret})
  razorpay:  ${_describeRazorpay()}
  drain:     ${stack.url}/functions/v1/outbox-drain (service key; npx -y deno@2.9.6 task outbox runs the same drain)
  tracking:  ${stack.url}/functions/v1/track-order?order=<orderId>&token=<token>
  storefront: ${stack.url}/storefront/ (the example checkout, on this stack's keys and the seed's store)
  order page: ${stack.url}/track?order=<orderId>&token=<token> (${
  env.ORDER_TRACKING_URL ? "buyers' e-mails link to ORDER_TRACKING_URL instead" : "buyers' e-mails link here"
})
  rest:      ${stack.url}/rest/v1/rpc/<function> and GET ${stack.url}/rest/v1/<table>?select=…&<column>=eq.<value>
  auth:      ${stack.url}/auth/v1/.well-known/jwks.json (npx -y deno@2.9.6 task token <e-mail> signs in a local user)
  anon key:          ${stack.anonKey}
  service_role key:  ${stack.serviceKey}${
  env.SUPABASE_PUBLISHABLE_KEYS ? `\n  publishable keys:  ${env.SUPABASE_PUBLISHABLE_KEYS}` : ""
}${env.SUPABASE_SECRET_KEYS ? `\n  secret keys:       ${env.SUPABASE_SECRET_KEYS}` : ""}

Try it:
curl -i ${stack.url}/functions/v1/create-order \\
  -H 'Authorization: Bearer ${stack.anonKey}' \\
  -H 'Content-Type: application/json' \\
  -d '${JSON.stringify(SEED_EXAMPLE_ORDER)}'
`);

Deno.addSignalListener("SIGINT", async () => {
  await stack.close();
  await db.close();
  Deno.exit(0);
});

/** Which Razorpay the payment functions call, and the fake's keys when it is the fake. */
function _describeRazorpay(): string {
  const fake = stack.razorpay;
  if (!fake) return `RAZORPAY_API_URL (${env.RAZORPAY_API_URL}) with RAZORPAY_KEY_ID`;
  return `a fake on ${fake.url} (checkout script ${fake.checkoutScriptUrl})
    key id:          ${fake.keyId}
    key secret:      ${env.RAZORPAY_KEY_SECRET ? "RAZORPAY_KEY_SECRET" : fake.keySecret}
    webhook secret:  ${
    env.RAZORPAY_WEBHOOK_SECRET ? "RAZORPAY_WEBHOOK_SECRET" : fake.webhookSecret
  } (its webhooks go to payment-webhook)`;
}

/** .local/db/, or a sentence and exit 2 when another process holds it. */
async function _openLocalPglite(): Promise<SqlDatabase> {
  try {
    return await openPglite(".local/db", "the dev task");
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    console.error(`dev: ${error.message}. Stop it first, or give this one PostgreSQL (DATABASE_URL=…).`);
    Deno.exit(2);
  }
}
