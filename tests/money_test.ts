import assert from "node:assert/strict";
import {
  ABOVE_CATALOGUE_MINOR,
  calculateCheckoutFee,
  CHECKOUT_FEE_RATES_BP,
  divideRoundHalfUp,
  isPrice,
  MAX_AMOUNT_MINOR,
  priceOrder,
  submittedPriceMinor,
  toMinorUnits,
} from "../supabase/functions/_shared/orders/money.ts";

Deno.test("calculateCheckoutFee() applies each rate of spec 4.1", async (t) => {
  const cases = [
    { method: "upi_direct", gateway: null, totalMinor: 100_000, fee: 0 },
    { method: "gateway", gateway: "card", totalMinor: 100_000, fee: 2_500 },
    { method: "gateway", gateway: "upi", totalMinor: 100_000, fee: 2_000 },
    { method: "gateway", gateway: "wallet", totalMinor: 100_000, fee: 2_000 },
  ] as const;
  for (const c of cases) {
    await t.step(`${c.method}/${c.gateway ?? "-"}: 1000.00 -> fee ${c.fee / 100}`, () => {
      assert.equal(calculateCheckoutFee(c.totalMinor, c.method, c.gateway), c.fee);
    });
  }
});

Deno.test("calculateCheckoutFee() charges card rates when a gateway order names no sub-method", () => {
  assert.equal(calculateCheckoutFee(100_000, "gateway", null), 2_500);
});

Deno.test("calculateCheckoutFee() rounds half up at an exact half", () => {
  assert.equal(calculateCheckoutFee(20, "gateway", "card"), 1); // 0.20 at 2.5 % = 0.005 -> 0.01
  assert.equal(calculateCheckoutFee(25, "gateway", "upi"), 1); // 0.25 at 2 % = 0.005 -> 0.01
});

Deno.test("calculateCheckoutFee() rounds down below a half", () => {
  assert.equal(calculateCheckoutFee(19, "gateway", "card"), 0); // 0.00475 -> 0.00
  assert.equal(calculateCheckoutFee(59_800, "gateway", "card"), 1_495); // 14.95 exactly
  assert.equal(calculateCheckoutFee(69_899, "gateway", "upi"), 1_398); // 13.9798 -> 13.98
});

Deno.test("divideRoundHalfUp() rounds exact halves up and others to nearest", () => {
  assert.deepEqual([5, 14, 15, 16, 25].map((n) => divideRoundHalfUp(n, 10)), [1, 1, 2, 2, 3]);
});

Deno.test("CHECKOUT_FEE_RATES_BP holds the rates of spec 4.1 in basis points", () => {
  assert.deepEqual(CHECKOUT_FEE_RATES_BP, { upi_direct: 0, gateway: { card: 250, upi: 200, wallet: 200 } });
});

Deno.test("priceOrder() sums without float error: 0.10 x 3 = 0.30", () => {
  assert.deepEqual(priceOrder([{ unitPriceMinor: toMinorUnits(0.1)!, quantity: 3 }], "upi_direct"), {
    totalMinor: 30,
    feeMinor: 0,
    finalMinor: 30,
  });
});

Deno.test("priceOrder() makes finalAmount total plus fee across lines", () => {
  const amounts = priceOrder(
    [
      { unitPriceMinor: 34_900, quantity: 2 },
      { unitPriceMinor: 19_950, quantity: 1 },
    ],
    "gateway",
    "card",
  );
  assert.deepEqual(amounts, { totalMinor: 89_750, feeMinor: 2_244, finalMinor: 91_994 }); // fee 22.4375 -> 22.44
});

Deno.test("toMinorUnits() converts amounts with up to two decimals exactly", async (t) => {
  const cases: [number, number | null][] = [
    [19.99, 1999],
    [0.1, 10],
    [1.005, null],
    [0, 0],
    [349, 34_900],
    [9_999_999_999.99, 999_999_999_999],
    [10_000_000_000, null],
    [-1, null],
    [1e21, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
  ];
  for (const [amount, minor] of cases) {
    await t.step(`${amount} -> ${minor}`, () => assert.equal(toMinorUnits(amount), minor));
  }
});

Deno.test("isPrice() accepts any finite number >= 0 with at most 2 decimals, however large", async (t) => {
  const cases: [number, boolean][] = [
    [0, true],
    [19.99, true],
    [10_000_000_000, true],
    [99_999_999_999.99, true],
    [1e21, true],
    [Number.MAX_VALUE, true],
    [1.005, false],
    [0.1 + 0.2, false],
    [5e-324, false],
    [-0.01, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
  ];
  for (const [amount, accepted] of cases) {
    await t.step(`${amount} -> ${accepted}`, () => assert.equal(isPrice(amount), accepted));
  }
});

Deno.test("submittedPriceMinor() is exact within numeric(12,2) and the first amount beyond it above", () => {
  assert.equal(ABOVE_CATALOGUE_MINOR, MAX_AMOUNT_MINOR + 1);
  assert.equal(submittedPriceMinor(9_999_999_999.99), MAX_AMOUNT_MINOR);
  assert.equal(submittedPriceMinor(10_000_000_000), ABOVE_CATALOGUE_MINOR);
  assert.equal(submittedPriceMinor(1e21), ABOVE_CATALOGUE_MINOR);
  assert.equal(submittedPriceMinor(0.1), 10);
});
