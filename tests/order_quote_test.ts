/**
 * `quoteOrder()` of the client: the amount a checkout page shows before the order is placed is the amount
 * create-order then answers, for each payment method, from the functions' own fee rules.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { createOrder, type CreateOrderBody, quoteOrder } from "../client/mod.ts";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

Deno.test("quoteOrder() prices a cart as the contract says, per method, rounding the fee half up to the paisa", async (t) => {
  // 2 × 349.00 + 1 × 299.00 = 997.00
  const cart = [{ price: 349, quantity: 2 }, { price: 299, quantity: 1 }];
  const cases: [string, CreateOrderBody["paymentMethod"], CreateOrderBody["gatewayMethod"], unknown][] = [
    ["gateway card: 2.5 %, 24.925 up to 24.93", "gateway", "card", [997, 24.93, 1021.93, 250]],
    ["gateway upi: 2 %", "gateway", "upi", [997, 19.94, 1016.94, 200]],
    ["gateway wallet: 2 %", "gateway", "wallet", [997, 19.94, 1016.94, 200]],
    ["gateway without a method: the card's rate", "gateway", null, [997, 24.93, 1021.93, 250]],
    ["upi_direct: no fee", "upi_direct", null, [997, 0, 997, 0]],
  ];
  for (const [label, method, gatewayMethod, expected] of cases) {
    await t.step(label, () => {
      const quote = quoteOrder(cart, method, gatewayMethod);
      assert.deepEqual(
        [quote.totalAmount, quote.checkoutFee, quote.finalAmount, quote.feeRateBp],
        expected,
      );
    });
  }
});

Deno.test("quoteOrder() adds prices in paise: 0.10 × 3 + 0.20 is 0.50, never 0.5000000000000001", () => {
  const quote = quoteOrder([{ price: 0.1, quantity: 3 }, { price: 0.2, quantity: 1 }], "upi_direct");
  assert.equal(quote.totalAmount, 0.5);
  assert.equal(quoteOrder([{ price: 1_01_694, quantity: 1 }], "gateway", "upi").finalAmount, 1_03_727.88);
});

Deno.test("quoteOrder() throws a TypeError for a price or quantity create-order would refuse", () => {
  assert.throws(() => quoteOrder([{ price: 1.005, quantity: 1 }], "upi_direct"), TypeError);
  assert.throws(() => quoteOrder([{ price: 1, quantity: 1.5 }], "upi_direct"), TypeError);
  assert.throws(() => quoteOrder([{ price: 1, quantity: 0 }], "upi_direct"), TypeError);
});

Deno.test({
  name: "[pglite] quoteOrder() equals what create-order answers for the same cart, for each payment method",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    const store = await createTestStore(db);
    const stack = await startTestStack({ db });
    const supabase = createClient(stack.url, stack.anonKey, { auth: { persistSession: false } });
    try {
      const items = [
        { productId: store.products[1].id, quantity: 3, price: 199.5 },
        { productId: store.products[2].id, variantId: store.variants[1].id, quantity: 1, price: 299 },
      ];
      const methods: [CreateOrderBody["paymentMethod"], CreateOrderBody["gatewayMethod"]][] = [
        ["gateway", "card"],
        ["gateway", "upi"],
        ["gateway", "wallet"],
        ["upi_direct", null],
      ];
      for (const [paymentMethod, gatewayMethod] of methods) {
        await t.step(`${paymentMethod} ${gatewayMethod ?? ""}`, async () => {
          const result = await createOrder(supabase, {
            storeId: store.storeId,
            buyerEmail: `quote-${crypto.randomUUID().slice(0, 8)}@example.com`,
            buyerName: "Asha Rao",
            buyerPhone: "+91 98450 12345",
            shippingAddress: {
              line1: "12 MG Road",
              city: "Pune",
              state: "Maharashtra",
              postalCode: "411001",
              country: "IN",
            },
            items,
            paymentMethod,
            ...(gatewayMethod
              ? { gatewayMethod }
              : { paymentProofUrl: "https://proofs.example.com/upi/1.png" }),
          });
          if (!result.ok) assert.fail(`${result.code}: ${result.message}`);
          const { totalAmount, checkoutFee, finalAmount } = quoteOrder(items, paymentMethod, gatewayMethod);
          assert.deepEqual(
            { totalAmount, checkoutFee, finalAmount },
            {
              totalAmount: result.order.totalAmount,
              checkoutFee: result.order.checkoutFee,
              finalAmount: result.order.finalAmount,
            },
          );
        });
      }
      await stack.settled();
    } finally {
      await stack.close();
    }
  },
});
