/**
 * The buyer's order page (`tracking_page.html`, the one a deployment hosts at ORDER_TRACKING_URL), served by
 * the local stack at `/track` with its addresses and key set to the stack's, so the link in a local buyer
 * e-mail opens a working page whose Pay button opens the local fake Razorpay's Checkout.
 */
const PAGE = await Deno.readTextFile(new URL("./tracking_page.html", import.meta.url));

/** The address the page's source names until it is deployed: docs/integrate.md tells the reader to replace it. */
export const PLACEHOLDER_TRACK_ORDER_URL = "https://<project-ref>.supabase.co/functions/v1/track-order";

/** The key the page's source names until it is deployed: start-payment and verify-payment take any project key. */
export const PLACEHOLDER_PUBLIC_KEY = "<your project's anon or publishable key>";

/** What the page's source leaves empty: the checkout script a local key id (rzp_local_…) loads. */
const _EMPTY_LOCAL_CHECKOUT = 'const LOCAL_CHECKOUT_SCRIPT = "";';

/** The page, calling the functions of the stack at `stackUrl` with its anon key. */
export function trackingPage(
  stackUrl: string,
  local: { anonKey?: string; checkoutScriptUrl?: string | null } = {},
): Response {
  const page = PAGE.replace(PLACEHOLDER_TRACK_ORDER_URL, `${stackUrl}/functions/v1/track-order`)
    .replace(PLACEHOLDER_PUBLIC_KEY, local.anonKey ?? PLACEHOLDER_PUBLIC_KEY)
    .replace(
      _EMPTY_LOCAL_CHECKOUT,
      `const LOCAL_CHECKOUT_SCRIPT = ${JSON.stringify(local.checkoutScriptUrl ?? "")};`,
    );
  return new Response(page, {
    headers: { "Content-Type": "text/html; charset=utf-8", "Referrer-Policy": "no-referrer" },
  });
}
