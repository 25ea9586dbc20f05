import assert from "node:assert/strict";
import {
  COMMIT_RESERVE_MS,
  commitDeadline,
} from "../supabase/functions/_shared/orders/supabase_order_store.ts";

Deno.test("commitDeadline() keeps a fifth of the time left, at most COMMIT_RESERVE_MS, for the commit and the answer", async (t) => {
  const now = new Date("2026-05-04T03:02:01.000Z");
  const after = (ms: number) => new Date(now.getTime() + ms);
  for (
    const [left, kept] of [
      [6_000, COMMIT_RESERVE_MS],
      [1_500, 300],
      [100, 20],
      [0, 0],
      [-50, 0], // already past: create_order gives up at once
    ] as const
  ) {
    await t.step(`${left} ms left: ${kept} ms kept`, () => {
      assert.deepEqual(commitDeadline(after(left), now), after(left - kept));
    });
  }
});
