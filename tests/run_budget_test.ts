/** A drain run's time and pace, on a fake clock: pure, no waiting. */
import assert from "node:assert/strict";
import { createRunBudget } from "../supabase/functions/_shared/run_budget.ts";
import { createRequestPace } from "../supabase/functions/_shared/email/request_pace.ts";

function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

Deno.test("createRunBudget() closes at its budget, cuts the last requests to end before the run does, and makes claims last until then", () => {
  const clock = fakeClock();
  const budget = createRunBudget({ budgetMs: 40_000, sendTimeoutMs: 10_000, now: clock.now });
  assert.deepEqual([budget.open(), budget.remainingMs(), budget.requestTimeoutMs(), budget.claimMs()], [
    true,
    40_000,
    10_000,
    51_000, // the run's end (50 s) and the 1 s its last result takes to be recorded
  ]);
  clock.advance(39_999);
  assert.deepEqual([budget.open(), budget.requestTimeoutMs()], [true, 9_001]); // ends 1 s before the run
  clock.advance(1);
  assert.deepEqual([budget.open(), budget.remainingMs(), budget.elapsedMs()], [false, 0, 40_000]);
  clock.advance(9_500);
  assert.deepEqual([budget.requestTimeoutMs(), budget.claimMs()], [0, 1_500]);
});

Deno.test("createRequestPace() hands out turns at nine tenths of its rate, and a 429's hold delays the turn already waiting", async () => {
  const clock = fakeClock();
  const waits: number[] = [];
  let holdDuringWait: number | null = null;
  const pace = createRequestPace({
    perSecond: 2.5, // 2.25 a second kept: a turn every 444.4 ms
    now: clock.now,
    sleep: (ms) => {
      waits.push(ms);
      if (holdDuringWait !== null) {
        pace.holdFor(holdDuringWait);
        holdDuringWait = null;
      }
      clock.advance(ms);
      return Promise.resolve();
    },
  });
  assert.equal(pace.turnsWithin(1_000), 3); // now, +444 ms, +889 ms
  assert.equal(await pace.turn(10_000), true);
  assert.equal(await pace.turn(10_000), true);
  assert.deepEqual(waits.map(Math.round), [444]);
  // a 429 answers as the third turn starts its wait: the turn then waits out the hold (2 s from then)
  holdDuringWait = 2_000;
  assert.equal(await pace.turn(10_000), true);
  assert.deepEqual(waits.map(Math.round), [444, 444, 1_556]);
  assert.equal(await pace.turn(100), false, "the next turn is 444 ms away");
  assert.equal(waits.length, 3);
});

Deno.test("createRequestPace() without a rate limit never waits", async () => {
  const waits: number[] = [];
  const pace = createRequestPace({ perSecond: Infinity, sleep: (ms) => (waits.push(ms), Promise.resolve()) });
  for (let i = 0; i < 5; i++) assert.equal(await pace.turn(0), true);
  assert.deepEqual(waits, []);
});
