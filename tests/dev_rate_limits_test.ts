import assert from "node:assert/strict";
import { describeRateLimits, DEV_RATE_LIMITS, withDevRateLimits } from "../local/dev_rate_limits.ts";
import { SEED_EXAMPLE_ORDER } from "../local/example_order.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

Deno.test("withDevRateLimits() fills only the rate-limit variables left unset or empty", () => {
  assert.deepEqual(withDevRateLimits({ PORT: "1" }), { PORT: "1", ...DEV_RATE_LIMITS });
  assert.deepEqual(withDevRateLimits({ RATE_LIMIT_PER_EMAIL: "1", RATE_LIMIT_PER_IP: "" }), {
    ...DEV_RATE_LIMITS,
    RATE_LIMIT_PER_EMAIL: "1",
  });
});

Deno.test("describeRateLimits() says the limits in force and how to provoke a 429", () => {
  assert.equal(
    describeRateLimits(withDevRateLimits({})),
    "100 orders per buyer e-mail per 60 s, 1000 orders per client IP per 60 s " +
      "(RATE_LIMIT_PER_EMAIL=1: an e-mail's 2nd order in a minute is a 429)",
  );
  assert.equal(
    describeRateLimits(withDevRateLimits({ RATE_LIMIT_PER_IP: "0" })),
    "100 orders per buyer e-mail per 60 s, off per client IP " +
      "(RATE_LIMIT_PER_EMAIL=1: an e-mail's 2nd order in a minute is a 429)",
  );
  assert.equal(
    describeRateLimits(withDevRateLimits({ RATE_LIMIT_PER_EMAIL: "1", RATE_LIMIT_PER_IP: "1" })),
    "1 order per buyer e-mail per 60 s, 1 order per client IP per 60 s " +
      "(RATE_LIMIT_PER_EMAIL=1: an e-mail's 2nd order in a minute is a 429)",
  );
});

/** Posts the dev curl's order `count` times for `buyerEmail`; returns each status and Retry-After. */
async function postRepeatedly(
  env: Record<string, string | undefined>,
  buyerEmail: string,
  count: number,
): Promise<[number, string | null][]> {
  const stack = await startTestStack({ db: await sharedPglite(), env });
  try {
    const answers: [number, string | null][] = [];
    for (let i = 0; i < count; i++) {
      const response = await stack.post({ ...SEED_EXAMPLE_ORDER, buyerEmail });
      await response.body?.cancel();
      answers.push([response.status, response.headers.get("retry-after")]);
    }
    return answers;
  } finally {
    await stack.close();
  }
}

Deno.test({
  name: "[pglite] POST create-order under the deployed defaults refuses the dev curl's 11th order",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const answers = await postRepeatedly({}, "deployed-defaults@example.com", 11);
    assert.deepEqual(answers.slice(0, 10).map(([status]) => status), Array(10).fill(200));
    assert.equal(answers[10][0], 429);
  },
});

Deno.test({
  name:
    "[pglite] POST create-order under deno task dev's limits takes the dev curl 12 times, and RATE_LIMIT_PER_EMAIL=1 refuses the 2nd for under a minute",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const loop = await postRepeatedly(withDevRateLimits({}), "dev-loop@example.com", 12);
    assert.deepEqual(loop.map(([status]) => status), Array(12).fill(200));
    const [first, second] = await postRepeatedly(
      withDevRateLimits({ RATE_LIMIT_PER_EMAIL: "1" }),
      "dev-429@example.com",
      2,
    );
    assert.equal(first[0], 200);
    assert.equal(second[0], 429);
    assert.ok(Number(second[1]) >= 1 && Number(second[1]) <= 60, `Retry-After ${second[1]}`);
  },
});
