/**
 * The example checkout on a phone, in headless Chromium at 360 px: nothing scrolls sideways (the page was
 * 462 px wide there: the catalogue's rows and the cart's five columns spilled over), with an empty cart, a
 * full one with long amounts, a refused quantity's note, and an answer shown. The cart then shows each
 * line's unit price under its name instead of in a column of its own. Photographed into
 * .local/screenshots/ (docs/ with UPDATE_SCREENSHOTS=1). Skipped with a notice without Chromium.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  chromiumInstalled,
  screenshotPath,
  sidewaysOverflow,
  visibleText,
  visibleTexts,
  withPage,
} from "./support/browser.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const chromium = await chromiumInstalled("the storefront 360 px browser test");

const TEA = "aaaaaaaa-0001-4000-8000-000000000001";
const CHAI = "aaaaaaaa-0002-4000-8000-000000000002";
const TUMBLER = "aaaaaaaa-0003-4000-8000-000000000003";

async function _add(page: Page, productId: string, quantity: string): Promise<void> {
  const field = `li[data-product-id="${productId}"] input[name=quantity]`;
  await page.$eval(field, (input) => ((input as unknown as { value: string }).value = ""));
  await page.type(field, quantity);
  await page.click(`li[data-product-id="${productId}"] button.add`);
}

Deno.test({
  name:
    "[pglite] the example storefront fits a 360 px phone: no sideways scroll, the unit price under each line's name",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const stack = await startTestStack({ db: await sharedPglite() });
    try {
      await withPage(async (page, errors) => {
        await page.setViewport({ width: 360, height: 740 });
        await page.goto(`${stack.url}/storefront/`);
        await page.waitForSelector("body[data-ready=true]");
        await t.step("the catalogue and the empty cart", async () => {
          assert.equal(await sidewaysOverflow(page), 0);
        });
        await t.step("a cart of long amounts, a refused quantity's note", async () => {
          await _add(page, TEA, "10000");
          await _add(page, TUMBLER, "9999");
          await _add(page, CHAI, "1.5");
          assert.equal(
            await visibleText(page, `li[data-product-id="${CHAI}"] .quantity-problem`),
            "Enter a whole number from 1 to 10,000",
          );
          assert.deepEqual(await visibleTexts(page, "#cart tbody td:first-child"), [
            "Assam Tea 250 g ₹349.00 each",
            "Steel Tumbler (Large 400 ml) ₹299.00 each",
          ]);
          const headings = await page.$$eval(
            "#cart thead th",
            (cells) =>
              cells.filter((cell) =>
                (cell as unknown as { getClientRects(): unknown[] }).getClientRects().length > 0
              )
                .map((cell) => (cell as unknown as { textContent: string }).textContent),
          );
          assert.deepEqual(headings, ["Item", "Qty", "Total", ""]);
          // 349.00 × 10000 + 299.00 × 9999 = 64,79,701.00, and UPI's 2 %
          assert.equal(await visibleText(page, "#amount-to-pay"), "₹66,09,295.02");
          assert.equal(await sidewaysOverflow(page), 0);
          await page.screenshot({ path: await screenshotPath("storefront-360.png"), fullPage: true });
        });
        await t.step("an answer shown under the form", async () => {
          await page.click("#place-order");
          await page.waitForSelector("#result[data-outcome=VALIDATION_FAILED]");
          assert.equal(await sidewaysOverflow(page), 0);
        });
        assert.deepEqual(errors, []);
      });
      await stack.settled();
    } finally {
      await stack.close();
    }
  },
});
