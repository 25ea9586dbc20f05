import assert from "node:assert/strict";
import { type ApiKeys, requireApiKey, timingSafeEqual } from "../supabase/functions/_shared/http/auth.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";

const KEYS: ApiKeys = {
  bearer: ["anon.jwt.key", "service.jwt.key", "sb_publishable_abc", "sb_secret_xyz"],
  apikeyHeader: ["sb_publishable_abc", "sb_secret_xyz"],
};

function accepts(headers: Record<string, string>): boolean {
  try {
    requireApiKey(new Headers(headers), KEYS);
    return true;
  } catch (error) {
    assert.ok(error instanceof OrderError);
    assert.equal(error.code, "UNAUTHORIZED");
    assert.equal(error.headers?.["WWW-Authenticate"], "Bearer");
    return false;
  }
}

Deno.test("requireApiKey() accepts every configured key as a Bearer token", async (t) => {
  for (const key of KEYS.bearer) {
    await t.step(key, () => assert.equal(accepts({ Authorization: `Bearer ${key}` }), true));
  }
});

Deno.test("requireApiKey() accepts the newer keys in the apikey header, beside a buyer's JWT", () => {
  assert.equal(accepts({ apikey: "sb_publishable_abc" }), true);
  assert.equal(accepts({ apikey: "sb_secret_xyz", Authorization: "Bearer some.user.jwt" }), true);
});

Deno.test("requireApiKey() refuses a legacy JWT key alone in the apikey header", () => {
  assert.equal(accepts({ apikey: "anon.jwt.key" }), false);
});

Deno.test("requireApiKey() refuses missing, malformed and unknown credentials", async (t) => {
  const cases: Record<string, string>[] = [
    {},
    { Authorization: "" },
    { Authorization: "anon.jwt.key" },
    { Authorization: "Basic anon.jwt.key" },
    { Authorization: "Bearer " },
    { Authorization: "Bearer anon.jwt.keyX" },
    { Authorization: "Bearer anon.jwt.ke" },
    { Authorization: "Bearer anon.jwt.key extra" },
    { apikey: "sb_publishable_ab" },
  ];
  for (const headers of cases) {
    await t.step(JSON.stringify(headers), () => assert.equal(accepts(headers), false));
  }
});

Deno.test("timingSafeEqual() is true only for identical strings", () => {
  assert.equal(timingSafeEqual("abc", "abc"), true);
  assert.equal(timingSafeEqual("abc", "abd"), false);
  assert.equal(timingSafeEqual("abc", "abcd"), false);
  assert.equal(timingSafeEqual("", "a"), false);
  assert.equal(timingSafeEqual("é", "e"), false);
});
