/**
 * supabaseUserTokenVerifier(): supabase-js auth.getClaims against a project's key set, served here by the
 * local stack's Auth routes on a free port (no database needed).
 */
import assert from "node:assert/strict";
import { createSigningKey, mintUserToken } from "../local/auth_keys.ts";
import { createAuthRoutes } from "../local/auth_routes.ts";
import { supabaseUserTokenVerifier } from "../supabase/functions/_shared/auth/supabase_user_token_verifier.ts";

async function serveAuth(options: { hang?: boolean } = {}) {
  const key = await createSigningKey();
  const auth = createAuthRoutes(key);
  const requests: string[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    const { pathname } = new URL(request.url);
    requests.push(pathname);
    if (options.hang) await new Promise((resolve) => setTimeout(resolve, 500));
    return pathname.startsWith("/auth/v1/")
      ? auth(request, pathname.slice("/auth/v1".length))
      : new Response("no route", { status: 404 });
  });
  return { key, requests, url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("supabaseUserTokenVerifier() verifies an ES256 token against the project's key set, fetched once", async () => {
  const auth = await serveAuth();
  try {
    const verify = supabaseUserTokenVerifier(auth.url, "anon-key");
    const sub = crypto.randomUUID();
    for (let i = 0; i < 3; i++) {
      const claims = await verify(await mintUserToken(auth.key, { sub }));
      assert.equal(claims?.sub, sub);
      assert.equal(claims?.role, "authenticated");
    }
    assert.deepEqual(auth.requests, ["/auth/v1/.well-known/jwks.json"]);
  } finally {
    await auth.close();
  }
});

Deno.test("supabaseUserTokenVerifier() refuses an expired token, another key's, a tampered one and garbage", async () => {
  const auth = await serveAuth();
  try {
    const verify = supabaseUserTokenVerifier(auth.url, "anon-key");
    const sub = crypto.randomUUID();
    const valid = await mintUserToken(auth.key, { sub });
    const [header, , signature] = valid.split(".");
    const forgedPayload = btoa(JSON.stringify({ sub: crypto.randomUUID(), role: "authenticated", exp: 9e9 }))
      .replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_");
    for (
      const token of [
        await mintUserToken(auth.key, { sub, expiresIn: -1 }),
        await mintUserToken(await createSigningKey(), { sub }),
        `${header}.${forgedPayload}.${signature}`,
        "a.b.c",
        "not-a-jwt",
      ]
    ) {
      assert.equal(await verify(token), null, token);
    }
  } finally {
    await auth.close();
  }
});

Deno.test("supabaseUserTokenVerifier() gives up on a key set that does not answer: the token is unverified", async () => {
  const auth = await serveAuth({ hang: true });
  try {
    const verify = supabaseUserTokenVerifier(auth.url, "anon-key", { timeoutMs: 100 });
    assert.equal(await verify(await mintUserToken(auth.key, { sub: crypto.randomUUID() })), null);
  } finally {
    await auth.close();
  }
});
