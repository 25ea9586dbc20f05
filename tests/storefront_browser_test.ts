/**
 * The example checkout (examples/storefront/, served by the local stack at /storefront/) in headless
 * Chromium, driven by puppeteer-core: it loads the seed's catalogue with supabase-js, builds a cart and
 * places an order through the client; a price changed in the database after the page loaded is shown as
 * the new price and the order goes through at it; a buyer past the per-e-mail limit is told how long to
 * wait. Each outcome is photographed into .local/screenshots/, or into docs/ (the README's pictures) with
 * UPDATE_SCREENSHOTS=1, so that a run of the suite leaves the checkout unchanged. Skipped with a notice where
 * Chromium is not installed.
 */
import assert from "node:assert/strict";
import puppeteer, { type Page } from "puppeteer-core";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";
const chromium = await Deno.stat(CHROMIUM).then(() => true, () => false);
if (!chromium) {
  console.log(
    `notice: no Chromium at ${CHROMIUM}: the storefront browser test is skipped (apt-get install chromium)`,
  );
}

const TEA = "aaaaaaaa-0001-4000-8000-000000000001";
const CHAI = "aaaaaaaa-0002-4000-8000-000000000002";
const TUMBLER = "aaaaaaaa-0003-4000-8000-000000000003";
const SCREENSHOTS = Deno.env.get("UPDATE_SCREENSHOTS") === "1" ? "../docs/" : "../.local/screenshots/";
const docs = (name: string) => new URL(`${SCREENSHOTS}${name}`, import.meta.url).pathname;
await Deno.mkdir(new URL(SCREENSHOTS, import.meta.url), { recursive: true });

async function _openCheckout(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/storefront/`);
  await page.waitForSelector("body[data-ready=true]");
}

async function _fillBuyer(page: Page, buyerEmail: string): Promise<void> {
  const fields: [string, string][] = [
    ["buyerName", "Asha Rao"],
    ["buyerEmail", buyerEmail],
    ["buyerPhone", "+91 98765 43210"],
    ["line1", "12 MG Road"],
    ["city", "Pune"],
    ["state", "Maharashtra"],
    ["postalCode", "411001"],
  ];
  for (const [name, value] of fields) await page.type(`[name=${name}]`, value);
}

const _add = (page: Page, productId: string) => page.click(`li[data-product-id="${productId}"] button.add`);

async function _placeOrder(page: Page): Promise<{ outcome: string; text: string }> {
  await page.click("#place-order");
  await page.waitForSelector("#result[data-outcome]");
  // runs in the page: typed by hand, as Deno's own types have no DOM
  return await page.$eval("#result", (node) => {
    const result = node as unknown as { dataset: Record<string, string>; innerText: string };
    return { outcome: result.dataset.outcome, text: result.innerText.replace(/\s+/g, " ") };
  });
}

Deno.test({
  name:
    "[pglite] the example storefront places an order, shows a changed price and a rate limit in headless Chromium",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    const stack = await startTestStack({
      db,
      env: { RATE_LIMIT_PER_EMAIL: "1", RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS: "900" },
    });
    const profile = await Deno.makeTempDir();
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--user-data-dir=${profile}`,
      ],
    });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 820, height: 900 });
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(String(error)));

      await t.step("an order of the catalogue's products is placed and its amounts shown", async () => {
        await _openCheckout(page, stack.url);
        assert.equal(await page.$eval("#store-name", (h) => h.textContent), "Chai & Co.");
        await _add(page, TEA);
        await _add(page, TEA);
        await _add(page, TUMBLER); // its first option, Large 400 ml at 299.00
        await _fillBuyer(page, "asha@example.com");
        const { outcome, text } = await _placeOrder(page);
        assert.equal(outcome, "placed");
        const orderNumber = /Order (ORD-\d{4}-\d{6}) is placed/.exec(text)?.[1];
        assert.ok(orderNumber, text);
        assert.match(text, /To pay: ₹1,016\.94 \(₹997\.00 and a ₹19\.94 payment fee\)/);
        const [order] = await db.query<{ final_amount: string; buyer_email: string; items: number }>(
          `select o.final_amount::text, o.buyer_email, (select count(*)::int from public.order_items i
             where i.order_id = o.id) as items from public.orders o where o.order_number = $1`,
          [orderNumber],
        );
        assert.deepEqual(order, { final_amount: "1016.94", buyer_email: "asha@example.com", items: 2 });
        await page.screenshot({ path: docs("storefront-order-placed.png"), fullPage: true });
      });

      await t.step(
        "a price changed after the page loaded is shown, and the order then goes through at it",
        async () => {
          await _openCheckout(page, stack.url);
          await _add(page, CHAI);
          await _fillBuyer(page, "ravi@example.com");
          await db.query("update public.products set price = 219.00 where id = $1", [CHAI]);
          try {
            const refused = await _placeOrder(page);
            assert.equal(refused.outcome, "PRICE_MISMATCH");
            assert.match(refused.text, /Masala Chai Mix 100 g: now ₹219\.00 \(was ₹199\.50\)/);
            assert.equal(await page.$eval("#subtotal", (cell) => cell.textContent), "₹219.00");
            await page.screenshot({ path: docs("storefront-price-changed.png"), fullPage: true });
            const placed = await _placeOrder(page);
            assert.equal(placed.outcome, "placed");
            assert.match(placed.text, /To pay: ₹223\.38/); // 219.00 and 2 % for UPI
          } finally {
            await db.query("update public.products set price = 199.50 where id = $1", [CHAI]);
          }
        },
      );

      await t.step(
        "a buyer past the per-e-mail limit is told how long to wait, and nothing is stored",
        async () => {
          const [before] = await db.query<{ n: number }>("select count(*)::int as n from public.orders");
          await _openCheckout(page, stack.url);
          await _add(page, TEA);
          await _fillBuyer(page, "asha@example.com"); // her one order of the window is placed above
          const { outcome, text } = await _placeOrder(page);
          assert.equal(outcome, "RATE_LIMITED");
          const minutes = Number(/Please wait about (\d+) minutes/.exec(text)?.[1]);
          assert.ok(minutes >= 1 && minutes <= 15, text);
          const [after] = await db.query<{ n: number }>("select count(*)::int as n from public.orders");
          assert.equal(after.n, before.n);
          await page.screenshot({ path: docs("storefront-too-many-orders.png"), fullPage: true });
        },
      );
      assert.deepEqual(pageErrors, []);
    } finally {
      await browser.close();
      await stack.close();
      await Deno.remove(profile, { recursive: true });
    }
  },
});
