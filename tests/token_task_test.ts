import assert from "node:assert/strict";
import { loadOrCreateSigningKey, verifyUserToken } from "../local/auth_keys.ts";
import { runTokenTask } from "../local/token_task.ts";

Deno.test("deno task token signs in a local user with the key kept on disk: the same e-mail is the same user", async () => {
  const dir = await Deno.makeTempDir();
  const keyPath = `${dir}/auth/signing_key.json`;
  try {
    const first = await runTokenTask(["Asha@Example.com"], { keyPath });
    const again = await runTokenTask(["asha@example.com"], { keyPath });
    assert.equal(first.userId, again.userId);
    assert.match(first.userId, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // the key was written once and is what a server started later (deno task dev) serves
    const key = await loadOrCreateSigningKey(keyPath);
    for (const { token, userId } of [first, again]) {
      const verdict = await verifyUserToken(key, token);
      assert.ok("claims" in verdict);
      assert.equal(verdict.claims.sub, userId);
      assert.equal(verdict.claims.role, "authenticated");
    }
    assert.equal((await Deno.stat(keyPath)).mode! & 0o777, 0o600);

    const byId = await runTokenTask(["5A0C8F8E-3B1A-4C2D-9E8F-0A1B2C3D4E5F"], { keyPath });
    assert.equal(byId.userId, "5a0c8f8e-3b1a-4c2d-9e8f-0a1b2c3d4e5f");
    const expired = await runTokenTask(["asha@example.com", "--expires-in=-5"], { keyPath });
    assert.deepEqual(await verifyUserToken(key, expired.token), { refused: "expired" });
    await assert.rejects(runTokenTask(["nobody"], { keyPath }), /neither a user id/);
    await assert.rejects(runTokenTask([], { keyPath }), /usage/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
