/**
 * create-order's adapter tries an order refused with STORE_BUSY (OCW29: its store's waiter slots are taken)
 * again after a short jittered pause, until the deadline; any other failure, a client's own rate limit
 * included, is answered at once. A fake clock and sleep: the database's side is in store_waiter_slots_test.ts.
 */
import assert from "node:assert/strict";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import { mapDatabaseError } from "../supabase/functions/_shared/orders/database_errors.ts";
import {
  FIRST_PAUSE_MS,
  MAX_PAUSE_MS,
  retryWhileStoreBusy,
  storeBusyPause,
} from "../supabase/functions/_shared/orders/store_busy_retry.ts";

const STORE_BUSY = { code: "OCW29", message: "STORE_BUSY", details: '{"retryAfterSeconds": 1}' };

/** A clock that only the fake sleep moves, and the pauses it was asked for. */
function fakeTime(startMs = 0) {
  let now = startMs;
  const pauses: number[] = [];
  return {
    pauses,
    clock: () => new Date(now),
    sleep: (ms: number) => {
      pauses.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

Deno.test("storeBusyPause() doubles from 10-20 ms to at most 50-100 ms, half of each step random", () => {
  assert.deepEqual([1, 2, 3, 4, 9].map((n) => storeBusyPause(n, () => 0)), [10, 20, 40, 50, 50]);
  assert.deepEqual([1, 2, 3, 4, 9].map((n) => storeBusyPause(n, () => 0.999999)), [20, 40, 80, 100, 100]);
  assert.equal(FIRST_PAUSE_MS, 20);
  assert.equal(MAX_PAUSE_MS, 100);
});

Deno.test("retryWhileStoreBusy() tries a STORE_BUSY call again after each pause until it goes through", async () => {
  const time = fakeTime();
  let calls = 0;
  const result = await retryWhileStoreBusy(() => {
    calls++;
    return calls < 4 ? Promise.reject(mapDatabaseError(STORE_BUSY)) : Promise.resolve("stored");
  }, { deadline: new Date(6_000), clock: time.clock, sleep: time.sleep, random: () => 0.5 });
  assert.equal(result, "stored");
  assert.equal(calls, 4);
  assert.deepEqual(time.pauses, [15, 30, 60]);
});

Deno.test("retryWhileStoreBusy() answers 429 RATE_LIMITED with Retry-After 1 when its next try could not start before the deadline", async () => {
  const time = fakeTime();
  let calls = 0;
  await assert.rejects(
    retryWhileStoreBusy(() => {
      calls++;
      return Promise.reject(mapDatabaseError(STORE_BUSY));
    }, { deadline: new Date(1_000), clock: time.clock, sleep: time.sleep, random: () => 0.5 }),
    (error: unknown) => {
      assert.ok(error instanceof OrderError);
      assert.equal(error.code, "RATE_LIMITED");
      assert.deepEqual(error.headers, { "Retry-After": "1" });
      return true;
    },
  );
  // 15 + 30 + 60 + 75 * 11 = 930 ms of pauses: one more would end at 1,005, past the deadline
  assert.deepEqual(time.pauses, [15, 30, 60, ...Array(11).fill(75)]);
  assert.equal(calls, 15);
});

Deno.test("retryWhileStoreBusy() answers any other failure at once, a client's own rate limit (OCR29) included", async () => {
  for (const failure of [{ code: "OCR29", details: '{"retryAfterSeconds": 60}' }, { code: "55P03" }]) {
    const time = fakeTime();
    let calls = 0;
    await assert.rejects(
      retryWhileStoreBusy(() => {
        calls++;
        return Promise.reject(mapDatabaseError(failure));
      }, { deadline: new Date(6_000), clock: time.clock, sleep: time.sleep }),
      OrderError,
    );
    assert.equal(calls, 1);
    assert.deepEqual(time.pauses, []);
  }
});
