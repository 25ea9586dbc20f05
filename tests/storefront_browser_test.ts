/**
 * The example checkout (examples/storefront/, served by the local stack at /storefront/) in headless
 * Chromium, driven by puppeteer-core: it loads the seed's catalogue with supabase-js, builds a cart and
 * places an order through the client, the cart frozen while the request runs; a price changed in the
 * database after the page loaded is shown as the new price and the order goes through at it; a product
 * that gained options, or was withdrawn, after the page loaded is read again and the buyer picks an option
 * or removes it; a buyer past the per-e-mail limit is told how long to wait; an address whose store is no
 * store says the shop is not taking orders. Each outcome is photographed into .local/screenshots/, or into docs/ (the pictures of docs/integrate.md) with
 * UPDATE_SCREENSHOTS=1, so that a run of the suite leaves the checkout unchanged. Skipped with a notice where
 * Chromium is not installed.
 */
import assert from "node:assert/strict";
import puppeteer, { type HTTPRequest, type Page } from "puppeteer-core";
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
const GIFT_TIN = "bbbbbbbb-00f1-4000-8000-0000000000f1"; // an option of the tea, added by a step below
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
  return await _result(page);
}

function _result(page: Page): Promise<{ outcome: string; text: string }> {
  // runs in the page: typed by hand, as Deno's own types have no DOM
  return page.$eval("#result", (node) => {
    const result = node as unknown as { dataset: Record<string, string>; innerText: string };
    return { outcome: result.dataset.outcome, text: result.innerText.replace(/\s+/g, " ") };
  });
}

/** The cart's lines as the buyer reads them: each row's text. */
function _cartLines(page: Page): Promise<string[]> {
  return page.$$eval(
    "#cart tbody tr",
    (rows) =>
      rows.map((row) => (row as unknown as { innerText: string }).innerText.replace(/\s+/g, " ").trim()),
  );
}

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

Deno.test({
  name:
    "[pglite] the example storefront in headless Chromium places orders with the cart frozen meanwhile, and shows each outcome as docs/integrate.md's table says",
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
        "while an order is being placed the cart is frozen, and a press after the order keeps the thank-you",
        async () => {
          await _openCheckout(page, stack.url);
          await _add(page, TEA);
          await _add(page, CHAI);
          await _fillBuyer(page, "dev@example.com");
          await page.setRequestInterception(true);
          const held = _holdNextOrder(page);
          await page.click("#place-order");
          const request = await held;
          try {
            // a line removed or added now would shift the answer's indexes, or be lost with the cart
            assert.ok((await _cartControlsDisabled(page)).every(Boolean));
            await page.click("#cart tbody tr button");
            await page.click(`li[data-product-id="${TUMBLER}"] button.add`);
            assert.deepEqual(await _cartLines(page), [
              "Assam Tea 250 g 1 ₹349.00 ₹349.00 Remove",
              "Masala Chai Mix 100 g 1 ₹199.50 ₹199.50 Remove",
            ]);
          } finally {
            await request.continue();
            await page.setRequestInterception(false);
          }
          await page.waitForSelector("#result[data-outcome]");
          const placed = await _result(page);
          assert.equal(placed.outcome, "placed");
          assert.ok((await _cartControlsDisabled(page)).every((disabled) => !disabled));
          await page.click("#place-order"); // the cart is empty now
          assert.deepEqual(await _result(page), placed);
        },
      );

      await t.step(
        "a product that gained options after the page loaded asks for one in the cart, and the order goes through with it",
        async () => {
          await _openCheckout(page, stack.url);
          await _add(page, TEA);
          await _fillBuyer(page, "meera@example.com");
          await db.query(
            `insert into public.product_variants (id, product_id, name, price)
             values ($1, $2, 'Gift tin 250 g', 399.00)`,
            [GIFT_TIN, TEA],
          );
          try {
            const refused = await _placeOrder(page);
            assert.deepEqual(refused, {
              outcome: "VARIANT_REQUIRED",
              text: "Choose an option for Assam Tea 250 g Pick one in your cart, then place the order again.",
            });
            // the catalogue was read again: the tea now offers its option there too
            assert.ok(await page.$(`li[data-product-id="${TEA}"] select[name=variant]`));
            await page.select("#cart select[name=option]", GIFT_TIN);
            assert.deepEqual(await _cartLines(page), [
              "Assam Tea 250 g (Gift tin 250 g) 1 ₹399.00 ₹399.00 Remove",
            ]);
            const placed = await _placeOrder(page);
            assert.equal(placed.outcome, "placed");
            assert.match(placed.text, /To pay: ₹406\.98/); // 399.00 and 2 % for UPI
          } finally {
            await db.query("update public.product_variants set is_active = false where id = $1", [GIFT_TIN]);
          }
        },
      );

      await t.step(
        "a product withdrawn after the page loaded is marked no longer available; removed, the order goes through",
        async () => {
          await _openCheckout(page, stack.url);
          await _add(page, CHAI);
          await _add(page, TEA);
          await _fillBuyer(page, "nikhil@example.com");
          await db.query("update public.products set is_active = false where id = $1", [CHAI]);
          try {
            const refused = await _placeOrder(page);
            assert.deepEqual(refused, {
              outcome: "PRODUCT_NOT_FOUND",
              text:
                "An item is no longer sold Masala Chai Mix 100 g is no longer available: remove it, then " +
                "place the order again.",
            });
            assert.equal(await page.$(`li[data-product-id="${CHAI}"]`), null);
            assert.deepEqual(await _cartLines(page), [
              "Masala Chai Mix 100 g no longer available 1 ₹199.50 ₹199.50 Remove",
              "Assam Tea 250 g 1 ₹349.00 ₹349.00 Remove",
            ]);
            await page.click(`#cart tbody tr[data-product-id="${CHAI}"] button`);
            const placed = await _placeOrder(page);
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
            assert.deepEqual(await _result(page), {
              outcome: "STORE_NOT_FOUND",
              text: "This shop is not taking orders Please come back later.",
            });
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
          // the window is a fixed 15 minutes of the clock: the wait left is minutes, or seconds in its last one
          const [, amount, unit] = /Please wait about (\d+) (seconds|minutes)/.exec(text) ?? [];
          const seconds = Number(amount) * (unit === "minutes" ? 60 : 1);
          assert.ok(seconds >= 1 && seconds <= 900, text);
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
