/**
 * A gateway payment in the example checkout (examples/storefront/) in headless Chromium, as a buyer makes it
 * on the local stack: the order is placed, "Pay now" opens the fake Razorpay's Checkout (the stand-in of
 * Razorpay's script) offering only the order's method, paying it calls verify-payment, and the page says the
 * order is paid, as the database does. With a real key id the page loads Razorpay's own checkout script
 * instead. Photographed into .local/screenshots/, or into docs/ with UPDATE_SCREENSHOTS=1. Skipped with a
 * notice where Chromium is not installed.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { chromiumInstalled, screenshotPath, visibleText, withPage } from "./support/browser.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import { addToCart, fillBuyer, openCheckout, placedOrderNumber, SEED } from "./support/storefront_page.ts";

const chromium = await chromiumInstalled("the storefront payment test");

/** Places an order of one Assam Tea paid through the gateway by `method`; answers its order number. */
async function placeGatewayOrder(page: Page, url: string, method: string, email: string): Promise<string> {
  await openCheckout(page, url);
  await addToCart(page, SEED.tea);
  await fillBuyer(page, email);
  await page.select("[name=payment]", `gateway:${method}`);
  await page.click("#place-order");
  await page.waitForSelector("#result[data-outcome=placed]");
  return placedOrderNumber(await visibleText(page, "#result"));
}

Deno.test({
  name:
    "[pglite] the example storefront pays a placed gateway order in Chromium through the fake Razorpay's Checkout, offering only the order's method, and shows it paid",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      await withPage(async (page, errors) => {
        const orderNumber = await placeGatewayOrder(page, stack.url, "upi", "pay-upi@example.com");
        await page.click("#pay-now");
        await page.waitForSelector("#razorpay-fake-checkout");
        // Checkout shows only UPI: the fee was priced for it (config.display)
        assert.equal(
          await page.$eval(
            "#razorpay-fake-checkout",
            (node) => (node as unknown as { dataset: { methods: string } }).dataset.methods,
          ),
          "upi",
        );
        await page.screenshot({ path: await screenshotPath("storefront-checkout.png"), fullPage: true });
        await page.click("#razorpay-fake-checkout [data-action=captured]");
        await page.waitForSelector("#result[data-outcome=paid]");
        assert.match(await visibleText(page, "#result"), new RegExp(`Order ${orderNumber} is paid`));
        await page.screenshot({ path: await screenshotPath("storefront-paid.png"), fullPage: true });
        await stack.razorpay!.webhooks.settled();
        // verify-payment and the webhooks raced: one of them paid it, the others found it paid
        const [order] = await db.query<{ status: string; paid: number; verified: number }>(
          `select o.status::text,
             (select count(*)::int from public.payments p where p.order_id = o.id and p.outcome = 'paid') as paid,
             (select count(*)::int from public.payments p where p.order_id = o.id
               and p.provider_event_id like 'checkout:%') as verified
           from public.orders o where o.order_number = $1 and o.store_id = $2`,
          [orderNumber, SEED.store],
        );
        assert.deepEqual(order, { status: "paid", paid: 1, verified: 1 });
        assert.deepEqual(errors, []);
      });
      await stack.razorpay!.webhooks.settled();
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name: "[pglite] the example storefront loads Razorpay's own checkout script for a real key id",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await sharedPglite();
    // a test key id: the fake still answers the API (no RAZORPAY_API_URL), the page must not use its script
    const stack = await startTestStack({
      db,
      env: { RAZORPAY_KEY_ID: "rzp_test_1DP5mmOlF5G5ag", RAZORPAY_KEY_SECRET: "thisisasecret" },
    });
    try {
      await withPage(async (page) => {
        await placeGatewayOrder(page, stack.url, "card", "pay-real@example.com");
        await page.setRequestInterception(true);
        const scripts: string[] = [];
        page.on("request", (request) => {
          if (request.resourceType() === "script") scripts.push(request.url());
          // nothing leaves the machine: Razorpay's script is refused here
          if (request.url().startsWith("https://")) request.abort();
          else request.continue();
        });
        await page.click("#pay-now");
        await page.waitForFunction(() =>
          (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } } })
            .document.querySelector("#result .outcome p.muted:last-child")?.textContent.includes(
              "could not be loaded",
            )
        );
        assert.deepEqual(scripts, ["https://checkout.razorpay.com/v1/checkout.js"]);
      });
    } finally {
      await stack.close();
    }
  },
});
