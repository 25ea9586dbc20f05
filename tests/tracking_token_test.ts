import assert from "node:assert/strict";
import {
  isOrderTrackingToken,
  orderTrackingToken,
} from "../supabase/functions/_shared/orders/tracking_token.ts";

const SECRET = "test-tracking-secret-of-32-characters";
const ORDER = "58f64d93-1c2b-4d5e-8f90-a1b2c3d4e5f6";

Deno.test("orderTrackingToken() is the base64url HMAC-SHA256 of the order id, without padding", async () => {
  // HMAC-SHA256(key "key", message "") = 5d5d1395…07d0, a published test value
  const expected = btoa(String.fromCharCode(
    ...("5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0".match(/../g)!.map((h) =>
      parseInt(h, 16)
    )),
  )).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  assert.equal(await orderTrackingToken("key", ""), expected);
  const token = await orderTrackingToken(SECRET, ORDER);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(await orderTrackingToken(SECRET, ORDER.toUpperCase()), token);
});

Deno.test("isOrderTrackingToken() accepts only the order's own token under the same secret", async () => {
  const token = await orderTrackingToken(SECRET, ORDER);
  assert.equal(await isOrderTrackingToken(SECRET, ORDER, token), true);
  assert.equal(await isOrderTrackingToken(SECRET, ORDER.toUpperCase(), token), true);
  const otherOrder = await orderTrackingToken(SECRET, crypto.randomUUID());
  const oneOff = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
  for (
    const wrong of [
      otherOrder,
      oneOff,
      await orderTrackingToken(`${SECRET}!`, ORDER),
      `${token}=`,
      token.slice(0, 42),
      "",
      null,
      undefined,
    ]
  ) {
    assert.equal(await isOrderTrackingToken(SECRET, ORDER, wrong), false, String(wrong));
  }
});
