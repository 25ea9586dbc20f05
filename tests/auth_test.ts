import assert from "node:assert/strict";
import {
  type ApiKeys,
  type KeyAccess,
  requireApiKey,
  timingSafeEqual,
} from "../supabase/functions/_shared/http/auth.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";

const KEYS: ApiKeys = {
  public: ["anon.jwt.key", "sb_publishable_abc"],
  service: ["service.jwt.key", "sb_secret_xyz"],
};
const ALL = [...KEYS.public, ...KEYS.service];

function accepts(headers: Record<string, string>, access: KeyAccess = "project"): boolean {
  try {
    requireApiKey(new Headers(headers), KEYS, access);
    return true;
  } catch (error) {
    assert.ok(error instanceof OrderError);
    assert.equal(error.code, "UNAUTHORIZED");
    assert.equal(error.headers?.["WWW-Authenticate"], "Bearer");
    return false;
  }
}

Deno.test("requireApiKey() accepts every project key as a Bearer token", async (t) => {
  for (const key of ALL) {
    await t.step(key, () => assert.equal(accepts({ Authorization: `Bearer ${key}` }), true));
  }
});

Deno.test("requireApiKey() accepts the Bearer scheme in any letter case (RFC 9110 §11.1)", async (t) => {
  for (const scheme of ["bearer", "BEARER", "bEaReR"]) {
    await t.step(scheme, () => assert.equal(accepts({ Authorization: `${scheme} anon.jwt.key` }), true));
  }
});

Deno.test("requireApiKey() accepts every project key in apikey, whatever Authorization carries", async (t) => {
  // supabase-js for a signed-in buyer: apikey = the project key, Authorization = the user's JWT
  for (const key of ALL) {
    await t.step(key, () => {
      assert.equal(accepts({ apikey: key }), true);
      assert.equal(accepts({ apikey: key, Authorization: "Bearer eyJhbGciOi.user.jwt" }), true);
      assert.equal(accepts({ apikey: key, Authorization: "Basic garbage" }), true);
    });
  }
});

Deno.test("requireApiKey() for a service function admits only service and secret keys", async (t) => {
  for (const key of KEYS.service) {
    await t.step(`${key} admitted`, () => {
      assert.equal(accepts({ Authorization: `Bearer ${key}` }, "service"), true);
      assert.equal(accepts({ apikey: key }, "service"), true);
    });
  }
  for (const key of KEYS.public) {
    await t.step(`${key} refused`, () => {
      assert.equal(accepts({ Authorization: `Bearer ${key}` }, "service"), false);
      assert.equal(accepts({ apikey: key, Authorization: `Bearer ${key}` }, "service"), false);
    });
  }
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
    { Authorization: "Bearerx anon.jwt.key" },
    { apikey: "sb_publishable_ab" },
    { apikey: "" },
    { apikey: "Bearer anon.jwt.key" },
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
