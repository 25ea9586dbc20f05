/**
 * The example checkout's mobile number in headless Chromium, as pasted from a phone's contacts: with a
 * no-break space (U+00A0) or a narrow one (U+202F) between the groups, or with India's international prefix
 * 00. Each is sent as +91 98450 12345 and the order is placed; before, they were sent as typed and the page
 * said "Mobile number: please correct". Skipped with a notice without Chromium.
 */
import assert from "node:assert/strict";
import { chromiumInstalled, visibleText, withPage } from "./support/browser.ts";
import { sharedPglite } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const chromium = await chromiumInstalled("the storefront phone browser test");

const TEA = "aaaaaaaa-0001-4000-8000-000000000001";

Deno.test({
  name:
    "[pglite] the example storefront places an order for 98450 12345 typed with a no-break space, a narrow one, or as 0091 98450 12345",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      await withPage(async (page, errors) => {
        await page.goto(`${stack.url}/storefront/`);
        await page.waitForSelector("body[data-ready=true]");
        const cases: [string, string][] = [
          ["a no-break space", "98450\u00a012345"],
          ["a narrow no-break space", "+91\u202f98450\u202f12345"],
          ["India's international prefix", "0091 98450 12345"],
        ];
        for (const [what, typed] of cases) {
          await t.step(what, async () => {
            await page.click(`li[data-product-id="${TEA}"] button.add`);
            for (
              const name of ["buyerName", "buyerEmail", "buyerPhone", "line1", "city", "state", "postalCode"]
            ) {
              await page.$eval(
                `[name=${name}]`,
                (input) => ((input as unknown as { value: string }).value = ""),
              );
            }
            const email = `phone-${crypto.randomUUID().slice(0, 8)}@example.com`;
            const fields: [string, string][] = [
              ["buyerName", "Asha Rao"],
              ["buyerEmail", email],
              ["line1", "12 MG Road"],
              ["city", "Pune"],
              ["state", "Maharashtra"],
              ["postalCode", "411001"],
            ];
            for (const [name, value] of fields) await page.type(`[name=${name}]`, value);
            // pasted, as from contacts: the value set at once
            await page.$eval("[name=buyerPhone]", (input, value) => {
              (input as unknown as { value: string }).value = value as string;
            }, typed);
            await page.click("#place-order");
            await page.waitForSelector(
              "#result[data-outcome=placed], #result[data-outcome=VALIDATION_FAILED]",
            );
            const text = await visibleText(page, "#result");
            const orderNumber = /Order (ORD-\d{4}-\d{6,}) is placed/.exec(text)?.[1];
            assert.ok(orderNumber, text);
            const [order] = await db.query<{ buyer_phone: string }>(
              `select buyer_phone from public.orders
               where order_number = $1 and store_id = '11111111-1111-4111-8111-111111111111'`,
              [orderNumber],
            );
            assert.equal(order.buyer_phone, "+919845012345");
            await page.waitForFunction(() =>
              !(globalThis as unknown as { document: { querySelector(s: string): { disabled: boolean } } })
                .document.querySelector("#place-order").disabled
            );
          });
        }
        assert.deepEqual(errors, []);
      });
      await stack.settled();
    } finally {
      await stack.close();
    }
  },
});
