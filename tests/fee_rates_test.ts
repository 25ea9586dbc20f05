/**
 * The fee rates live in two places: the function computes the fee (money.ts) and the database verifies it
 * (checkout_fee() in SQL). One table of cases, with the fee the contract gives, runs through both.
 */
import assert from "node:assert/strict";
import {
  calculateCheckoutFee,
  type GatewayMethod,
  type PaymentMethod,
} from "../supabase/functions/_shared/orders/money.ts";
import { testDatabases } from "./support/databases.ts";

/** [total in paise, method, gateway method, the contract's fee in paise] */
const FEE_CASES: [number, PaymentMethod, GatewayMethod | null, number][] = [
  [0, "gateway", "card", 0],
  [69_800, "upi_direct", null, 0],
  [999_999_999_999, "upi_direct", null, 0],
  [69_800, "gateway", "card", 1_745], // 698.00 at 2.5 % = 17.45
  [69_800, "gateway", "upi", 1_396],
  [69_800, "gateway", "wallet", 1_396],
  [1, "gateway", "card", 0], // 0.025 paise
  [19, "gateway", "card", 0], // 0.475
  [20, "gateway", "card", 1], // 0.5: half up
  [60, "gateway", "card", 2], // 1.5: half up, not to even
  [100, "gateway", "card", 3], // 2.5: half up, not to even
  [24, "gateway", "upi", 0], // 0.48
  [25, "gateway", "upi", 1], // 0.5
  [75, "gateway", "wallet", 2], // 1.5
  [99_999, "gateway", "card", 2_500], // 2499.975
  [999_999_999_999, "gateway", "card", 25_000_000_000], // 24,999,999,999.975
  [999_999_999_999, "gateway", "wallet", 20_000_000_000], // 19,999,999,999.98
];

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] calculateCheckoutFee() and SQL checkout_fee() give the contract's fee for every case`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      for (const [totalMinor, method, gateway, feeMinor] of FEE_CASES) {
        await t.step(
          `${totalMinor} paise by ${method}${gateway ? `/${gateway}` : ""}: ${feeMinor}`,
          async () => {
            assert.equal(calculateCheckoutFee(totalMinor, method, gateway), feeMinor);
            const [row] = await db.query<{ fee: string }>(
              "select (public.checkout_fee($1::numeric / 100, $2, $3) * 100)::bigint::text as fee",
              [totalMinor, method, gateway],
            );
            assert.equal(Number(row.fee), feeMinor);
          },
        );
      }
    },
  });
}
