import assert from "node:assert/strict";
import {
  buyerUserIdOf,
  signedInBuyerId,
  userTokenOf,
} from "../supabase/functions/_shared/auth/signed_in_buyer.ts";

const JWT_ANON_KEY = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.c2lnbmF0dXJl";
const JWT_SERVICE_KEY = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2lnbmF0dXJl";
const KEYS = { public: [JWT_ANON_KEY, "sb_publishable_x"], service: [JWT_SERVICE_KEY, "sb_secret_y"] };
const USER_JWT = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsifQ.eyJzdWIiOiJ1In0.c2ln";
const USER_ID = "5a0c8f8e-3b1a-4c2d-9e8f-0a1b2c3d4e5f";

function headers(authorization: string) {
  return new Headers({ apikey: "sb_publishable_x", Authorization: authorization });
}

Deno.test("userTokenOf() takes a JWT in Authorization as a user's, but never a project key", async (t) => {
  const cases: [string, string, string | undefined][] = [
    ["a user JWT", `Bearer ${USER_JWT}`, USER_JWT],
    ["the scheme in any case", `bEaReR ${USER_JWT}`, USER_JWT],
    ["the legacy anon key (a JWT)", `Bearer ${JWT_ANON_KEY}`, undefined],
    ["the legacy service-role key (a JWT)", `Bearer ${JWT_SERVICE_KEY}`, undefined],
    ["a secret key", "Bearer sb_secret_y", undefined],
    ["no JWT shape", "Bearer abc", undefined],
    ["another scheme", `Basic ${USER_JWT}`, undefined],
  ];
  for (const [name, authorization, expected] of cases) {
    await t.step(name, () => assert.equal(userTokenOf(headers(authorization), KEYS), expected));
  }
  assert.equal(userTokenOf(new Headers({ apikey: "sb_publishable_x" }), KEYS), undefined);
});

Deno.test("buyerUserIdOf() is the sub of an authenticated user's claims, else null", async (t) => {
  const cases: [string, Record<string, unknown> | null, string | null][] = [
    ["a signed-in user", { sub: USER_ID, role: "authenticated" }, USER_ID],
    ["an upper-case sub, lowered", { sub: USER_ID.toUpperCase(), role: "authenticated" }, USER_ID],
    [
      "an anonymous sign-in is a user too",
      { sub: USER_ID, role: "authenticated", is_anonymous: true },
      USER_ID,
    ],
    ["the anon role", { sub: USER_ID, role: "anon" }, null],
    ["the service role", { role: "service_role" }, null],
    ["a sub that is no UUID", { sub: "user-1", role: "authenticated" }, null],
    ["no claims (unverified)", null, null],
  ];
  for (const [name, claims, expected] of cases) {
    await t.step(name, () => assert.equal(buyerUserIdOf(claims), expected));
  }
});

Deno.test("signedInBuyerId() asks the verifier only for a user's JWT, and is a guest when it refuses or throws", async () => {
  const asked: string[] = [];
  const verify = (jwt: string) => {
    asked.push(jwt);
    return Promise.resolve({ sub: USER_ID, role: "authenticated" });
  };
  assert.equal(await signedInBuyerId(headers(`Bearer ${USER_JWT}`), KEYS, verify), USER_ID);
  assert.equal(await signedInBuyerId(headers(`Bearer ${JWT_ANON_KEY}`), KEYS, verify), null);
  assert.deepEqual(asked, [USER_JWT]);
  assert.equal(await signedInBuyerId(headers(`Bearer ${USER_JWT}`), KEYS, () => Promise.resolve(null)), null);
  assert.equal(
    await signedInBuyerId(headers(`Bearer ${USER_JWT}`), KEYS, () => Promise.reject(new Error("JWKS down"))),
    null,
  );
});
