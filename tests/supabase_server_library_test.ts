/**
 * Why the functions check keys and read the signed-in buyer's claims themselves rather than through
 * Supabase's `@supabase/server` (docs/develop.md, Decisions): each test runs the library, as pinned in deno.json, on
 * a request the contract's Authentication section accepts or answers otherwise, and asserts what the
 * library does with it. When a new version of the library passes a case, its test fails: time to look again
 * at adopting it for that case.
 */
import assert from "node:assert/strict";
import { verifyAuth } from "@supabase/server/core";
import { withSupabase } from "@supabase/server";
import { requireApiKey } from "../supabase/functions/_shared/http/auth.ts";
import { userTokenOf } from "../supabase/functions/_shared/auth/signed_in_buyer.ts";

const PUBLISHABLE = "sb_publishable_library_test";
const SECRET = "sb_secret_library_test";
const LEGACY_SERVICE_ROLE = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.legacy";
const ENV = {
  url: "https://abcdefghijklmnopqrst.supabase.co",
  publishableKeys: { default: PUBLISHABLE },
  secretKeys: { default: SECRET },
  // an empty inline key set: no test reaches the network
  jwks: { keys: [] },
};
const OUR_KEYS = { public: [PUBLISHABLE], service: [SECRET, LEGACY_SERVICE_ROLE] };

function request(headers: Record<string, string>): Request {
  return new Request("https://abcdefghijklmnopqrst.supabase.co/functions/v1/update-order-status", {
    method: "POST",
    headers,
  });
}

/** A JWT signed with a shared secret and no `kid`, as projects still on the legacy JWT secret issue them. */
async function legacyUserJwt(): Promise<string> {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const body = `${part({ alg: "HS256", typ: "JWT" })}.${
    part({ sub: "5a0c8f8e-3b1a-4c2d-9e8f-0a1b2c3d4e5f", role: "authenticated", exp: 4102444800 })
  }`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("legacy-jwt-secret-of-the-project"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  return `${body}.${
    btoa(String.fromCharCode(...signature)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")
  }`;
}

Deno.test("@supabase/server 1.8.1 refuses a secret key in Authorization: Bearer, which the contract accepts", async () => {
  const headers = { Authorization: `Bearer ${SECRET}` };
  requireApiKey(new Headers(headers), OUR_KEYS, "service"); // ours: accepted
  const { data, error } = await verifyAuth(request(headers), { auth: "secret", env: ENV });
  assert.equal(data, null);
  assert.deepEqual([error?.status, error?.code], [401, "UNUSABLE_CREDENTIAL"]);
});

Deno.test("@supabase/server 1.8.1 reads the Bearer scheme only as `Bearer`, where RFC 9110 and the contract take any letter case", async () => {
  const token = await legacyUserJwt();
  const headers = { Authorization: `bearer ${token}`, apikey: PUBLISHABLE };
  assert.equal(userTokenOf(new Headers(headers), OUR_KEYS), token); // ours: the buyer's token
  const { error } = await verifyAuth(request({ Authorization: `bearer ${token}` }), {
    auth: "user",
    env: ENV,
  });
  assert.deepEqual([error?.status, error?.code], [401, "UNUSABLE_CREDENTIAL"]);
});

Deno.test("@supabase/server 1.8.1 knows no legacy key: SUPABASE_SERVICE_ROLE_KEY in apikey is refused while legacy keys are enabled", async () => {
  const headers = { apikey: LEGACY_SERVICE_ROLE };
  requireApiKey(new Headers(headers), OUR_KEYS, "service"); // ours: accepted until LEGACY_API_KEYS=disabled
  const { error } = await verifyAuth(request(headers), { auth: "secret", env: ENV });
  assert.deepEqual([error?.status, error?.code], [401, "INVALID_API_KEY"]);
});

Deno.test("@supabase/server 1.8.1 cannot verify a user token of a project on the legacy JWT secret (HS256, no kid)", async () => {
  // ours hands such a token to supabase-js auth.getClaims, which asks the project's Auth server
  const { error } = await verifyAuth(request({ Authorization: `Bearer ${await legacyUserJwt()}` }), {
    auth: "user",
    env: ENV,
  });
  assert.deepEqual([error?.status, error?.code], [401, "INVALID_JWT"]);
  assert.match(error!.message + (error!.details ? JSON.stringify(error!.details) : ""), /kid/);
});

Deno.test("@supabase/server 1.8.1 answers a missing key with its own body and no WWW-Authenticate", async () => {
  const handler = withSupabase(
    { auth: "secret", env: ENV },
    () => Promise.resolve(Response.json({ ok: true })),
  );
  const response = await handler(request({ Origin: "https://shop.example" }));
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("www-authenticate"), null);
  const body = await response.json();
  assert.equal(body.code, "MISSING_CREDENTIALS");
  assert.equal(body.success, undefined, "not the contract's { success: false, error: { code, message } }");
});
