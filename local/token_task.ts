/**
 * `deno task token <user-id | e-mail>`: prints a local user's access token, signed with the local key that
 * `deno task dev` serves at /auth/v1/.well-known/jwks.json (kept in .local/auth/signing_key.json), so a
 * demo or a test can act as a signed-in buyer: send it as `Authorization: Bearer <token>` beside the anon
 * key, or hand it to supabase-js. An e-mail address always gives the same user id. Valid for an hour
 * (`--expires-in=<seconds>` to change).
 */
import {
  loadOrCreateSigningKey,
  LOCAL_SIGNING_KEY_PATH,
  mintUserToken,
  userIdForEmail,
} from "./auth_keys.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user and token the task prints for `args`, signed with the key at `keyPath`. */
export async function runTokenTask(
  args: string[],
  options: { keyPath?: string; issuer?: string } = {},
): Promise<{ userId: string; email: string; token: string }> {
  const [who, ...flags] = args;
  if (!who) {
    throw new Error("usage: npx -y deno@2.9.6 task token <user-id | e-mail> [--expires-in=<seconds>]");
  }
  let expiresIn = 3600;
  for (const flag of flags) {
    const match = /^--expires-in=(-?\d+)$/.exec(flag);
    if (!match) throw new Error(`unknown argument ${flag}: use --expires-in=<seconds>`);
    expiresIn = Number(match[1]);
  }
  const userId = UUID.test(who) ? who.toLowerCase() : who.includes("@") ? await userIdForEmail(who) : "";
  if (!userId) throw new Error(`${who} is neither a user id (UUID) nor an e-mail address`);
  const email = who.includes("@") ? who.trim() : "";
  const key = await loadOrCreateSigningKey(options.keyPath ?? LOCAL_SIGNING_KEY_PATH);
  const token = await mintUserToken(key, { sub: userId, email, expiresIn, issuer: options.issuer });
  return { userId, email, token };
}

if (import.meta.main) {
  try {
    const port = Deno.env.get("PORT") ?? "54321";
    const { userId, token } = await runTokenTask(Deno.args, {
      issuer: `http://127.0.0.1:${port}/auth/v1`,
    });
    console.error(`user ${userId}`);
    console.log(token);
  } catch (error) {
    console.error(`token: ${(error as Error).message}`);
    Deno.exit(2);
  }
}
