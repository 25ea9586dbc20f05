/**
 * The example checkout (examples/storefront/, served by the local stack at /storefront/) as a buyer uses it,
 * for the browser tests: the seed's store and products, opening the page, filling the cart and the form,
 * placing the order and reading what the page then says.
 */
import type { Page } from "puppeteer-core";
import { visibleText } from "./browser.ts";

/** The seed's store (Chai & Co., Asia/Kolkata) and products (supabase/seed.sql). */
export const SEED = {
  store: "11111111-1111-4111-8111-111111111111",
  /** Assam Tea 250 g, 349.00. */
  tea: "aaaaaaaa-0001-4000-8000-000000000001",
  /** Masala Chai Mix 100 g, 199.50. */
  chai: "aaaaaaaa-0002-4000-8000-000000000002",
  /** Steel Tumbler; its first option is Large 400 ml, 299.00. */
  tumbler: "aaaaaaaa-0003-4000-8000-000000000003",
  /** The tumbler's Large 400 ml option. */
  tumblerLarge: "bbbbbbbb-0002-4000-8000-000000000002",
} as const;

/** Opens the checkout of the stack at `url` and waits until it has read the catalogue. */
export async function openCheckout(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/storefront/`);
  await page.waitForSelector("body[data-ready=true]");
}

/** Presses the product's "Add" button in the catalogue. */
export function addToCart(page: Page, productId: string): Promise<void> {
  return page.click(`li[data-product-id="${productId}"] button.add`);
}

/** Types the buyer's details into the form (Asha Rao of Pune, the mobile number `phone`). */
export async function fillBuyer(page: Page, buyerEmail: string, phone = "+91 98765 43210"): Promise<void> {
  const fields: [string, string][] = [
    ["buyerName", "Asha Rao"],
    ["buyerEmail", buyerEmail],
    ["buyerPhone", phone],
    ["line1", "12 MG Road"],
    ["city", "Pune"],
    ["state", "Maharashtra"],
    ["postalCode", "411001"],
  ];
  for (const [name, value] of fields) await page.type(`[name=${name}]`, value);
}

/** What the page says of the last order it tried: `placed` or an error code, and the text shown. */
export interface CheckoutResult {
  outcome: string;
  text: string;
}

/** Presses "Place order" and waits for the page's answer. */
export async function placeOrder(page: Page): Promise<CheckoutResult> {
  await page.click("#place-order");
  await page.waitForSelector("#result[data-outcome]");
  return await checkoutResult(page);
}

/** The page's answer as shown: its outcome and its text, runs of white space made one space. */
export async function checkoutResult(page: Page): Promise<CheckoutResult> {
  // runs in the page: typed by hand, as Deno's own types have no DOM
  const outcome = await page.$eval(
    "#result",
    (node) => (node as unknown as { dataset: Record<string, string> }).dataset.outcome,
  );
  return { outcome, text: await visibleText(page, "#result") };
}

/** The order number in a "placed" answer's text (throws where there is none). */
export function placedOrderNumber(text: string): string {
  const number = /Order (ORD-\d{4}-\d{6,}) is placed/.exec(text)?.[1];
  if (!number) throw new Error(`no placed order in ${JSON.stringify(text)}`);
  return number;
}
