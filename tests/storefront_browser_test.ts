/**
 * The example checkout (examples/storefront/, served by the local stack at /storefront/) in headless
 * Chromium, driven by puppeteer-core: it loads the seed's catalogue with supabase-js, builds a cart and
 * places an order through the client, the cart frozen while the request runs; a price changed in the
 * database after the page loaded is shown as the new price and the order goes through at it; a product
 * that gained options, or was withdrawn, after the page loaded is read again and the buyer picks an option
 * or removes it; a buyer past the per-e-mail limit is told how long to wait; an address whose store is no
 * store says the shop is not taking orders. Each outcome is photographed into .local/screenshots/, or into
 * docs/ (the pictures of the README and docs/integrate.md) with UPDATE_SCREENSHOTS=1 (tests/support/browser.ts), so that a run of the
 * suite leaves the checkout unchanged. Skipped with a notice where Chromium is not installed.
 */
import assert from "node:assert/strict";
import type { HTTPRequest, Page } from "puppeteer-core";
import { chromiumInstalled, screenshotPath, visibleTexts, withPage } from "./support/browser.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";
import {
  addToCart,
  checkoutResult,
  fillBuyer,
  openCheckout,
  placedOrderNumber,
  placeOrder,
  SEED,
} from "./support/storefront_page.ts";

const chromium = await chromiumInstalled("the storefront browser test");

const { tea: TEA, chai: CHAI, tumbler: TUMBLER } = SEED;
const GIFT_TIN = "bbbbbbbb-00f1-4000-8000-0000000000f1"; // an option of the tea, added by a step below

/** Whether each of the cart's and the catalogue's controls is disabled. */
function _cartControlsDisabled(page: Page): Promise<boolean[]> {
  return page.$$eval(
    "#catalogue button, #catalogue input, #catalogue select, #cart button, #cart select",
    (controls) => controls.map((control) => (control as unknown as { disabled: boolean }).disabled),
  );
}

/**
 * Holds the page's next create-order request (once `page.setRequestInterception(true)`) until the caller
 * lets it go; every other request passes.
 */
function _holdNextOrder(page: Page): Promise<HTTPRequest> {
  return new Promise((resolve) => {
    const onRequest = (request: HTTPRequest) => {
      if (request.method() === "POST" && request.url().endsWith("/functions/v1/create-order")) {
        page.off("request", onRequest);
        resolve(request);
      } else request.continue();
    };
    page.on("request", onRequest);
  });
}

/**
 * A buyer's address in a domain no other test uses: the rate-limit buckets live in the database, which every
 * test of this process shares, and each step's address is its own bucket.
 */
const buyer = (name: string) => `${name}@storefront.example`;
/** The per-e-mail limit's window: one order per address in it. */
const WINDOW_SECONDS = 900;

Deno.test({
  name:
    "[pglite] the example storefront in headless Chromium places orders with the cart frozen meanwhile, and shows each outcome as docs/integrate.md's table says",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    // one order per e-mail and window; no limit per IP, which every test of this process shares
    const stack = await startTestStack({
      db,
      env: {
        RATE_LIMIT_PER_EMAIL: "1",
        RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: String(WINDOW_SECONDS),
        RATE_LIMIT_PER_IP: "0",
      },
    });
    const orderCount = async () =>
      (await db.query<{ n: number }>("select count(*)::int as n from public.orders"))[0].n;
    try {
      await withPage(async (page, pageErrors) => {
        await t.step("an order of the catalogue's products is placed and its amounts shown", async () => {
          await openCheckout(page, stack.url);
          assert.equal(await page.$eval("#store-name", (h) => h.textContent), "Chai & Co.");
          await addToCart(page, TEA);
          await addToCart(page, TEA);
          await addToCart(page, TUMBLER); // its first option, Large 400 ml at 299.00
          await fillBuyer(page, buyer("asha"));
          const { outcome, text } = await placeOrder(page);
          assert.equal(outcome, "placed");
          const orderNumber = placedOrderNumber(text);
          assert.match(text, /To pay: ₹1,016\.94 \(₹997\.00 and a ₹19\.94 payment fee\)/);
          const [order] = await db.query<{ final_amount: string; buyer_email: string; items: number }>(
            `select o.final_amount::text, o.buyer_email, (select count(*)::int from public.order_items i
               where i.order_id = o.id) as items from public.orders o where o.order_number = $1
               and o.store_id = $2`,
            [orderNumber, SEED.store],
          );
          assert.deepEqual(order, { final_amount: "1016.94", buyer_email: buyer("asha"), items: 2 });
          await page.screenshot({
            path: await screenshotPath("storefront-order-placed.png"),
            fullPage: true,
          });
        });

        await t.step(
          "a price changed after the page loaded is shown, and the order then goes through at it",
          async () => {
            await openCheckout(page, stack.url);
            await addToCart(page, CHAI);
            await fillBuyer(page, buyer("ravi"));
            await db.query("update public.products set price = 219.00 where id = $1", [CHAI]);
            try {
              const refused = await placeOrder(page);
              assert.equal(refused.outcome, "PRICE_MISMATCH");
              assert.match(refused.text, /Masala Chai Mix 100 g: now ₹219\.00 \(was ₹199\.50\)/);
              assert.equal(await page.$eval("#subtotal", (cell) => cell.textContent), "₹219.00");
              await page.screenshot({
                path: await screenshotPath("storefront-price-changed.png"),
                fullPage: true,
              });
              const placed = await placeOrder(page);
              assert.equal(placed.outcome, "placed");
              assert.match(placed.text, /To pay: ₹223\.38/); // 219.00 and 2 % for UPI
            } finally {
              await db.query("update public.products set price = 199.50 where id = $1", [CHAI]);
            }
          },
        );

        await t.step(
          "while an order is being placed the cart is frozen, and a press after the order keeps the thank-you",
          async () => {
            await openCheckout(page, stack.url);
            await addToCart(page, TEA);
            await addToCart(page, CHAI);
            await fillBuyer(page, buyer("dev"));
            await page.setRequestInterception(true);
            const held = _holdNextOrder(page);
            await page.click("#place-order");
            const request = await held;
            try {
              // a line removed or added now would shift the answer's indexes, or be lost with the cart
              assert.ok((await _cartControlsDisabled(page)).every(Boolean));
              await page.click("#cart tbody tr button");
              await addToCart(page, TUMBLER);
              assert.deepEqual(await visibleTexts(page, "#cart tbody tr"), [
                "Assam Tea 250 g 1 ₹349.00 ₹349.00 Remove",
                "Masala Chai Mix 100 g 1 ₹199.50 ₹199.50 Remove",
              ]);
            } finally {
              await request.continue();
              await page.setRequestInterception(false);
            }
            await page.waitForSelector("#result[data-outcome]");
            const placed = await checkoutResult(page);
            assert.equal(placed.outcome, "placed");
            assert.ok((await _cartControlsDisabled(page)).every((disabled) => !disabled));
            await page.click("#place-order"); // the cart is empty now
            assert.deepEqual(await checkoutResult(page), placed);
          },
        );

        await t.step(
          "a product that gained options after the page loaded asks for one in the cart, and the order goes through with it",
          async () => {
            await openCheckout(page, stack.url);
            await addToCart(page, TEA);
            await fillBuyer(page, buyer("meera"));
            await db.query(
              `insert into public.product_variants (id, product_id, name, price)
               values ($1, $2, 'Gift tin 250 g', 399.00)`,
              [GIFT_TIN, TEA],
            );
            try {
              const refused = await placeOrder(page);
              assert.deepEqual(refused, {
                outcome: "VARIANT_REQUIRED",
                text:
                  "Choose an option for Assam Tea 250 g Pick one in your cart, then place the order again.",
              });
              // the catalogue was read again: the tea now offers its option there too
              assert.ok(await page.$(`li[data-product-id="${TEA}"] select[name=variant]`));
              await page.select("#cart select[name=option]", GIFT_TIN);
              assert.deepEqual(await visibleTexts(page, "#cart tbody tr"), [
                "Assam Tea 250 g (Gift tin 250 g) 1 ₹399.00 ₹399.00 Remove",
              ]);
              const placed = await placeOrder(page);
              assert.equal(placed.outcome, "placed");
              assert.match(placed.text, /To pay: ₹406\.98/); // 399.00 and 2 % for UPI
            } finally {
              await db.query("update public.product_variants set is_active = false where id = $1", [
                GIFT_TIN,
              ]);
            }
          },
        );

        await t.step(
          "a product withdrawn after the page loaded is marked no longer available; removed, the order goes through",
          async () => {
            await openCheckout(page, stack.url);
            await addToCart(page, CHAI);
            await addToCart(page, TEA);
            await fillBuyer(page, buyer("nikhil"));
            await db.query("update public.products set is_active = false where id = $1", [CHAI]);
            try {
              const refused = await placeOrder(page);
              assert.deepEqual(refused, {
                outcome: "PRODUCT_NOT_FOUND",
                text:
                  "An item is no longer sold Masala Chai Mix 100 g is no longer available: remove it, then " +
                  "place the order again.",
              });
              assert.equal(await page.$(`li[data-product-id="${CHAI}"]`), null);
              assert.deepEqual(await visibleTexts(page, "#cart tbody tr"), [
                "Masala Chai Mix 100 g no longer available 1 ₹199.50 ₹199.50 Remove",
                "Assam Tea 250 g 1 ₹349.00 ₹349.00 Remove",
              ]);
              await page.click(`#cart tbody tr[data-product-id="${CHAI}"] button`);
              const placed = await placeOrder(page);
              assert.equal(placed.outcome, "placed");
              assert.match(placed.text, /To pay: ₹355\.98/); // 349.00 and 2 % for UPI
            } finally {
              await db.query("update public.products set is_active = true where id = $1", [CHAI]);
            }
          },
        );

        await t.step(
          "a store address that is no store, or a closed store, says the shop is not taking orders",
          async () => {
            for (const store of ["not-a-uuid", "22222222-2222-4222-8222-222222222222"]) {
              await page.goto(`${stack.url}/storefront/?store=${store}`);
              await page.waitForSelector("body[data-ready=closed]", { timeout: 10_000 });
              assert.equal(
                await page.$eval("#store-name", (h) => h.textContent),
                "This shop is not taking orders",
              );
              assert.deepEqual(await checkoutResult(page), {
                outcome: "STORE_NOT_FOUND",
                text: "This shop is not taking orders Please come back later.",
              });
            }
          },
        );

        await t.step(
          "a buyer past the per-e-mail limit is told how long to wait, and nothing is stored",
          async () => {
            // The limit counts per fixed window of the database's clock (WINDOW_SECONDS): an order just
            // before a window ends and the next just after are each their window's first, and both are
            // taken. So the buyer orders until refused, and every order taken must be the only one of a
            // window no order before it was in: wherever in its window the step runs, the second order of a
            // window is refused (a test pinning a flaky past: it once ran across a window's end).
            const email = buyer("kavya");
            const windows: string[] = [];
            let refused: { outcome: string; text: string } | undefined;
            while (!refused) {
              const before = await orderCount();
              await openCheckout(page, stack.url);
              await addToCart(page, TEA);
              await fillBuyer(page, email);
              const result = await placeOrder(page);
              if (result.outcome !== "placed") {
                assert.equal(await orderCount(), before, "a refused order stored nothing");
                refused = result;
                break;
              }
              const [bucket] = await db.query<{ window_start: string; hits: number }>(
                `select window_start::text, hits from public.order_rate_limits where bucket = $1
                 order by window_start desc limit 1`,
                [`email:${email}`],
              );
              assert.equal(
                bucket.hits,
                1,
                `an order taken past the limit in the window of ${bucket.window_start}`,
              );
              assert.ok(!windows.includes(bucket.window_start), "two orders taken in one window");
              windows.push(bucket.window_start);
            }
            assert.equal(refused.outcome, "RATE_LIMITED", refused.text);
            assert.ok(windows.length >= 1, "the buyer's first order was taken");
            // the wait left is what remains of the window: minutes, or seconds in its last one
            const [, amount, unit] = /Please wait about (\d+) (seconds|minutes)/.exec(refused.text) ?? [];
            const seconds = Number(amount) * (unit === "minutes" ? 60 : 1);
            assert.ok(seconds >= 1 && seconds <= WINDOW_SECONDS, refused.text);
            await page.screenshot({
              path: await screenshotPath("storefront-too-many-orders.png"),
              fullPage: true,
            });
          },
        );
        assert.deepEqual(pageErrors, []);
      });
    } finally {
      await stack.close();
    }
  },
});
