/**
 * The order page (local/tracking_page.html at /track) in headless Chromium, with orders placed and moved
 * through the functions on the local stack: the items, the subtotal, the fee named after the method and
 * the total; the date and times in India's time zone, as PostgreSQL itself converts the stored instants;
 * the timeline; the parcel of a shipped order; the Pay button of a gateway order awaiting payment, which
 * pays it through the fake Razorpay's Checkout; and at 360 px nothing scrolls sideways, long unbroken text
 * of a store or carrier (an answer of track-order stood in for) included. Photographed into
 * .local/screenshots/, or into docs/ with UPDATE_SCREENSHOTS=1. Skipped with a notice without Chromium.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { DEV_TRACKING_SECRET } from "../supabase/functions/_shared/config.ts";
import { orderTrackingToken } from "../supabase/functions/_shared/orders/tracking_token.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
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
import { SEED } from "./support/storefront_page.ts";
import { postStatusMove } from "./support/status_moves.ts";

const chromium = await chromiumInstalled("the order page browser test");

const { store: SEED_STORE, tea: TEA, tumbler: TUMBLER, tumblerLarge: TUMBLER_LARGE } = SEED;

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/** Places an order of the seed store through create-order; answers its id and number. */
async function placeOrder(stack: Stack, overrides: Record<string, unknown>) {
  const res = await stack.post({
    storeId: SEED_STORE,
    buyerEmail: `page-${crypto.randomUUID().slice(0, 8)}@example.com`,
    buyerName: "Asha Rao",
    buyerPhone: "+91 98450 12345",
    shippingAddress: {
      line1: "12 MG Road",
      city: "Pune",
      state: "Maharashtra",
      postalCode: "411001",
      country: "IN",
    },
    paymentMethod: "gateway",
    ...overrides,
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body as { orderId: string; orderNumber: string };
}

/** The order's page address, as its buyer's e-mails link to it. */
async function pageUrl(stack: Stack, orderId: string): Promise<string> {
  return `${stack.url}/track?order=${orderId}&token=${await orderTrackingToken(
    DEV_TRACKING_SECRET,
    orderId,
  )}`;
}

/**
 * How PostgreSQL writes an instant of the order in India's time zone, in the e-mails' style: the date the
 * order was made, then each status change's, oldest first.
 */
async function istTimes(db: SqlDatabase, orderId: string): Promise<{ placed: string; steps: string[] }> {
  const ist = (column: string) =>
    `to_char(${column} at time zone 'Asia/Kolkata', 'FMDD Mon YYYY, FMHH12:MI am')`;
  const [order] = await db.query<{ placed: string }>(
    `select ${ist("created_at")} as placed from public.orders where id = $1`,
    [orderId],
  );
  const steps = await db.query<{ at: string }>(
    `select ${ist("changed_at")} as at from public.order_status_history where order_id = $1 order by id`,
    [orderId],
  );
  return { placed: order.placed, steps: steps.map((step) => step.at) };
}

async function openOrderPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("#status");
}

Deno.test({
  name:
    "[pglite] the order page of a shipped order shows the items, the fee line, India's date and times, the timeline and the parcel, and fits a 360 px phone",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      const order = await placeOrder(stack, {
        items: [
          { productId: TEA, quantity: 2, price: 349 },
          { productId: TUMBLER, variantId: TUMBLER_LARGE, quantity: 1, price: 299 },
        ],
        gatewayMethod: "upi",
      });
      for (
        const move of [{ status: "paid" }, { status: "processing" }, {
          status: "shipped",
          carrier: "Delhivery",
          trackingNumber: "DL445712903381",
          trackingUrl: "https://www.delhivery.com/track/package/DL445712903381",
        }]
      ) assert.equal((await postStatusMove(stack, { orderId: order.orderId, ...move })).status, 200);
      await stack.settled();
      const times = await istTimes(db, order.orderId);
      await withPage(async (page, errors) => {
        await openOrderPage(page, await pageUrl(stack, order.orderId));
        assert.equal(await visibleText(page, "h1"), `Order ${order.orderNumber}`);
        assert.equal(await visibleText(page, "#status"), "Shipped");
        assert.deepEqual(await visibleTexts(page, "#items tbody tr"), [
          "Assam Tea 250 g 2 × ₹349.00 ₹698.00",
          "Steel Tumbler Large 400 ml 1 × ₹299.00 ₹299.00",
        ]);
        assert.deepEqual(await visibleTexts(page, "#items tfoot tr"), [
          "Subtotal ₹997.00",
          "UPI payment fee ₹19.94",
          "Total ₹1,016.94",
        ]);
        assert.equal(await visibleText(page, ".placed"), `Placed ${times.placed}`);
        assert.deepEqual(await visibleTexts(page, "#timeline li"), [
          `Order placed ${times.steps[0]}`,
          `Payment received ${times.steps[1]}`,
          `Being prepared ${times.steps[2]}`,
          `Shipped ${times.steps[3]}`,
        ]);
        assert.ok(
          (await visibleTexts(page, "main p")).includes("Times are India Standard Time."),
          "the zone is named",
        );
        assert.equal(await visibleText(page, "#parcel p"), "Delhivery, tracking number DL445712903381");
        assert.equal(
          await page.$eval("#parcel a", (a) => (a as unknown as { href: string }).href),
          "https://www.delhivery.com/track/package/DL445712903381",
        );
        assert.equal(await page.$("#pay-now"), null);
        await page.screenshot({ path: await screenshotPath("order-page-shipped.png"), fullPage: true });
        await page.setViewport({ width: 360, height: 740 });
        await openOrderPage(page, await pageUrl(stack, order.orderId));
        assert.equal(await sidewaysOverflow(page), 0);
        assert.deepEqual(errors, []);
      });
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[pglite] the order page of a gateway order awaiting payment offers Pay with Indian amounts at 360 px, and pays it through the fake Razorpay's Checkout",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await sharedPglite();
    const stack = await startTestStack({ db });
    try {
      // 300 × 349.00 = 1,04,700.00 and 2.5 % for a card, 2,617.50
      const order = await placeOrder(stack, {
        items: [{ productId: TEA, quantity: 300, price: 349 }],
        gatewayMethod: "card",
      });
      await withPage(async (page, errors) => {
        await page.setViewport({ width: 360, height: 740 });
        await openOrderPage(page, await pageUrl(stack, order.orderId));
        assert.equal(await visibleText(page, "#status"), "Awaiting payment");
        assert.deepEqual(await visibleTexts(page, "#items tfoot tr"), [
          "Subtotal ₹1,04,700.00",
          "Card payment fee ₹2,617.50",
          "Total ₹1,07,317.50",
        ]);
        assert.equal(await visibleText(page, "#pay-now"), "Pay ₹1,07,317.50 now");
        assert.equal(await sidewaysOverflow(page), 0);
        await page.screenshot({ path: await screenshotPath("order-page-pay.png"), fullPage: true });

        await page.click("#pay-now");
        await page.waitForSelector("#razorpay-fake-checkout");
        await page.click("#razorpay-fake-checkout [data-action=captured]");
        // verify-payment said paid: the page reloads and shows it
        await page.waitForFunction(() =>
          (globalThis as unknown as {
            document: { querySelector(s: string): { textContent: string } | null };
          })
            .document.querySelector("#status")?.textContent === "Paid"
        );
        assert.equal(await page.$("#pay-now"), null);
        assert.deepEqual(
          await visibleTexts(page, "#timeline .step"),
          ["Order placed", "Payment received"],
        );
        assert.deepEqual(errors, []);
      });
      await stack.razorpay!.webhooks.settled();
      const [row] = await db.query<{ status: string }>(
        "select status::text from public.orders where id = $1",
        [
          order.orderId,
        ],
      );
      assert.equal(row.status, "paid");
    } finally {
      await stack.close();
    }
  },
});

Deno.test({
  name:
    "[pglite] the order page breaks a store's or carrier's long unbroken text rather than scroll sideways at 360 px",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const stack = await startTestStack({ db: await sharedPglite() });
    const long = "DarjeelingFirstFlushMuscatelSpecialReserveEstateTeaWithAnExtraLongName1234567890";
    const answer = {
      success: true,
      orderId: "0b8f5a52-9a8e-4d1c-8f59-3f3c2f0d1a77",
      orderNumber: "ORD-2026-1000000",
      status: "shipped",
      createdAt: "2026-11-25T18:40:00Z",
      storeName: long,
      timeZone: "Asia/Kolkata",
      currency: "INR",
      paymentMethod: "gateway",
      gatewayMethod: "wallet",
      items: [{
        productName: long,
        variantName: long,
        quantity: 10000,
        unitPrice: 99999,
        lineTotal: 999990000,
      }],
      totalAmount: 999990000,
      checkoutFee: 19999800,
      finalAmount: 1019989800,
      history: [{ status: "payment_pending", at: "2026-11-25T18:40:00Z" }, {
        status: "shipped",
        at: "2026-11-26T18:40:00Z",
      }],
      shipment: { carrier: long, trackingNumber: long, trackingUrl: `https://track.example/${long}` },
    };
    try {
      await withPage(async (page, errors) => {
        await page.setViewport({ width: 360, height: 740 });
        await page.setRequestInterception(true);
        page.on("request", (request) => {
          if (request.url().includes("/functions/v1/track-order")) {
            request.respond({ status: 200, contentType: "application/json", body: JSON.stringify(answer) });
          } else request.continue();
        });
        await openOrderPage(page, `${stack.url}/track?order=${answer.orderId}&token=t`);
        // 18:40 UTC is 00:10 the next day in India
        assert.equal(await visibleText(page, ".placed"), "Placed 26 Nov 2026, 12:10 am");
        assert.equal(await visibleText(page, "#total"), "Total ₹1,01,99,89,800.00");
        assert.equal(await sidewaysOverflow(page), 0);
        assert.deepEqual(errors, []);
      });
    } finally {
      await stack.close();
    }
  },
});
