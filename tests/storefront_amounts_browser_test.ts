/**
 * The example checkout (examples/storefront/) in headless Chromium, before the order is placed: the amount to
 * pay, fee included, for the cart and the chosen method, updated as either changes and equal to what the
 * order then costs; and the buyer's mobile number typed as an Indian buyer types it behind the `+91` the
 * form shows, sent with the country code. Photographed into .local/screenshots/, or into docs/ with
 * UPDATE_SCREENSHOTS=1. Skipped with a notice without Chromium.
 */
import assert from "node:assert/strict";
import type { HTTPRequest, Page } from "puppeteer-core";
import { chromiumInstalled, screenshotPath, visibleText, visibleTexts, withPage } from "./support/browser.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { addToCart, fillBuyer, openCheckout, placedOrderNumber, SEED } from "./support/storefront_page.ts";

const chromium = await chromiumInstalled("the storefront amounts browser test");

const { tea: TEA, chai: CHAI, tumbler: TUMBLER } = SEED; // 349.00, 199.50, first option 299.00

/** The amounts shown before placing: the fee's name, then subtotal, fee and amount to pay. */
async function amounts(page: Page): Promise<string[]> {
  const ids = ["#fee-label", "#amount-subtotal", "#amount-fee", "#amount-to-pay"];
  return await Promise.all(ids.map((id) => visibleText(page, id)));
}

Deno.test({
  name:
    "[pglite] the example storefront shows the amount to pay, fee included, before the order is placed, for each method and as the cart changes",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      await withPage(async (page, errors) => {
        await openCheckout(page, stack.url);
        await t.step("the payment options name their fee", async () => {
          assert.deepEqual(await visibleTexts(page, "[name=payment] option"), [
            "UPI through the payment gateway (2 % fee)",
            "Card (2.5 % fee)",
            "Wallet (2 % fee)",
            "UPI transfer to the shop (no fee)",
          ]);
          assert.deepEqual(await amounts(page), ["UPI payment fee (2 %)", "–", "–", "–"]);
        });

        await addToCart(page, TEA);
        await addToCart(page, TEA);
        await addToCart(page, TUMBLER);
        await t.step("2 × 349.00 + 299.00, for each method", async () => {
          const cases: [string, string[]][] = [
            ["gateway:upi", ["UPI payment fee (2 %)", "₹997.00", "₹19.94", "₹1,016.94"]],
            ["gateway:card", ["Card payment fee (2.5 %)", "₹997.00", "₹24.93", "₹1,021.93"]], // 24.925 up
            ["gateway:wallet", ["Wallet payment fee (2 %)", "₹997.00", "₹19.94", "₹1,016.94"]],
            ["upi_direct", ["UPI transfer fee (0 %)", "₹997.00", "₹0.00", "₹997.00"]],
          ];
          for (const [method, shown] of cases) {
            await page.select("[name=payment]", method);
            assert.deepEqual(await amounts(page), shown, method);
          }
        });

        await t.step("500 more of the chai mix, by card: Indian digit grouping", async () => {
          await page.select("[name=payment]", "gateway:card");
          const quantity = `li[data-product-id="${CHAI}"] input[name=quantity]`;
          await page.$eval(quantity, (input) => ((input as unknown as { value: string }).value = ""));
          await page.type(quantity, "500");
          await addToCart(page, CHAI);
          // 997.00 + 99,750.00 = 1,00,747.00; 2.5 % is 2,518.675, up to 2,518.68
          assert.deepEqual(await amounts(page), [
            "Card payment fee (2.5 %)",
            "₹1,00,747.00",
            "₹2,518.68",
            "₹1,03,265.68",
          ]);
        });

        await t.step("a line removed: the amount follows", async () => {
          await page.click(`#cart tbody tr[data-product-id="${CHAI}"] button`);
          assert.deepEqual(await amounts(page), [
            "Card payment fee (2.5 %)",
            "₹997.00",
            "₹24.93",
            "₹1,021.93",
          ]);
        });

        await t.step("the amount shown before placing is the order's", async () => {
          await fillBuyer(page, "amounts@example.com", "98450 12345");
          await page.screenshot({
            path: await screenshotPath("storefront-amount-to-pay.png"),
            fullPage: true,
          });
          await page.click("#place-order");
          await page.waitForSelector("#result[data-outcome=placed]");
          const text = await visibleText(page, "#result");
          assert.match(text, /To pay: ₹1,021\.93 \(₹997\.00 and a ₹24\.93 payment fee\)/);
          const orderNumber = placedOrderNumber(text);
          const [order] = await db.query<{ final_amount: string; checkout_fee: string }>(
            `select final_amount::text, checkout_fee::text from public.orders
             where order_number = $1 and store_id = $2`,
            [orderNumber, SEED.store],
          );
          assert.deepEqual(order, { final_amount: "1021.93", checkout_fee: "24.93" });
          // the cart is empty again: nothing to pay
          assert.deepEqual(await amounts(page), ["Card payment fee (2.5 %)", "–", "–", "–"]);
        });
        assert.deepEqual(errors, []);
      });
      await stack.settled();
    } finally {
      await stack.close();
    }
  },
});

/** The buyerPhone of the page's next create-order request, which is refused before it leaves the browser. */
function nextOrderPhone(page: Page): Promise<string> {
  return new Promise((resolve) => {
    const onRequest = (request: HTTPRequest) => {
      if (request.method() === "POST" && request.url().endsWith("/functions/v1/create-order")) {
        page.off("request", onRequest);
        resolve(JSON.parse(request.postData()!).buyerPhone);
        request.abort();
      } else request.continue();
    };
    page.on("request", onRequest);
  });
}

Deno.test({
  name:
    "[pglite] the example storefront takes an Indian mobile number as typed behind +91, and sends +91 98450 12345",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      await withPage(async (page) => {
        await openCheckout(page, stack.url);
        assert.equal(await visibleText(page, "#country-code"), "+91");
        await addToCart(page, TEA);
        await fillBuyer(page, "mobile@example.com", "");
        await page.setRequestInterception(true);
        for (const typed of ["9845012345", "+91 98450 12345", "098450 12345", "98450 12345"]) {
          await t.step(`${typed} goes as +91 98450 12345`, async () => {
            await page.$eval(
              "[name=buyerPhone]",
              (input) => ((input as unknown as { value: string }).value = ""),
            );
            await page.type("[name=buyerPhone]", typed);
            const sent = nextOrderPhone(page);
            await page.click("#place-order");
            assert.equal(await sent, "+91 98450 12345");
            await page.waitForSelector("#result[data-outcome=NETWORK_ERROR]");
          });
        }
        await page.setRequestInterception(false);

        await t.step("98450 12345 is accepted, and stored in E.164", async () => {
          await page.click("#place-order");
          await page.waitForSelector("#result[data-outcome=placed]");
          const orderNumber = placedOrderNumber(await visibleText(page, "#result"));
          const [order] = await db.query<{ buyer_phone: string }>(
            `select buyer_phone from public.orders
             where order_number = $1 and store_id = $2`,
            [orderNumber, SEED.store],
          );
          assert.equal(order.buyer_phone, "+919845012345");
        });

        await t.step(
          "what is no number is still the function's to refuse: Mobile number, please correct",
          async () => {
            await addToCart(page, TEA);
            await page.$eval(
              "[name=buyerPhone]",
              (input) => ((input as unknown as { value: string }).value = ""),
            );
            await page.type("[name=buyerPhone]", "98450");
            await page.click("#place-order");
            await page.waitForSelector("#result[data-outcome=VALIDATION_FAILED]");
            assert.equal(
              await visibleText(page, "#result"),
              "Please check your details Mobile number: please correct and place the order again.",
            );
          },
        );
      });
      await stack.settled();
    } finally {
      await stack.close();
    }
  },
});
