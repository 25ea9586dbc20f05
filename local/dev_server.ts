/**
 * `deno task dev`: the local stack on http://127.0.0.1:${PORT:-54321}, over PostgreSQL at DATABASE_URL
 * or an embedded PGlite kept in .local/db/ (created, migrated and seeded on first start).
 * E-mail goes to Resend when RESEND_API_KEY is set, else to files in .local/outbox/. Payments go to the
 * Razorpay at RAZORPAY_API_URL when it is set, else to the fake Razorpay it serves beside the stack.
 * A configuration it cannot start with (PORT, keys, settings, a database) is one sentence and exit 2.
 */
import type { Mailer } from "../supabase/functions/_shared/email/mailer.ts";
import { openPglite } from "./open_database.ts";
import { connectPostgresOrExit } from "./database_connection.ts";
import { loadOrCreateSigningKey } from "./auth_keys.ts";
import { type LocalStack, startLocalStack } from "./stack.ts";
import { withDevRateLimits } from "./dev_rate_limits.ts";
import { devBanner } from "./dev_banner.ts";
import { checkDevEnv, checkPortFree, describeStartupError, devPorts } from "./dev_startup.ts";
import { readMigrations } from "./migrate.ts";
import { describeMissingMigrations, missingMigrations } from "./migration_status.ts";
import { DataDirInUseError } from "./data_dir_lock.ts";
import type { SqlDatabase } from "./sql_database.ts";

async function _main(): Promise<void> {
  const env = withDevRateLimits(Deno.env.toObject());
  // everything that needs no database first: a refusal then takes a second, not a PGlite start
  const { port, fakePort } = devPorts(env);
  checkDevEnv(env);
  checkPortFree(port, "the stack's (PORT)", "PORT");
  if (fakePort !== null) checkPortFree(fakePort, "the fake Razorpay's (PORT + 1)", "PORT");

  const db = env.DATABASE_URL
    ? await connectPostgresOrExit("dev", env.DATABASE_URL, 8)
    : await _openLocalPglite();
  let stack: LocalStack;
  try {
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
    stack = await startLocalStack({
      db,
      port,
      hostname: "127.0.0.1",
      env,
      mailer,
      signingKey,
      // the fake on the next port (54322 by default), so the docs' curls can name it; locally a refund
      // is processed a few seconds after it is issued, as Razorpay's test mode does it
      fakeRazorpay: { port: fakePort ?? 0, settleRefundsAfterMs: 3_000 },
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  console.log(devBanner(stack, env, db.kind));

  Deno.addSignalListener("SIGINT", async () => {
    await stack.close();
    await db.close();
    Deno.exit(0);
  });
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

try {
  await _main();
} catch (error) {
  const sentence = describeStartupError(error);
  if (sentence === null) throw error;
  console.error(`dev: ${sentence}`);
  Deno.exit(2);
}
