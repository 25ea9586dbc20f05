/**
 * The minimal tracking page of the README (`tracking_page.html`), served by the local stack at `/track`
 * with its track-order address set to the stack's, so the link in a local buyer e-mail opens a working page.
 */
const PAGE = await Deno.readTextFile(new URL("./tracking_page.html", import.meta.url));

/** The address the page's source names until it is deployed: the README tells the reader to replace it. */
export const PLACEHOLDER_TRACK_ORDER_URL = "https://<project-ref>.supabase.co/functions/v1/track-order";

/** The page, calling the track-order function of the stack at `stackUrl`. */
export function trackingPage(stackUrl: string): Response {
  return new Response(PAGE.replace(PLACEHOLDER_TRACK_ORDER_URL, `${stackUrl}/functions/v1/track-order`), {
    headers: { "Content-Type": "text/html; charset=utf-8", "Referrer-Policy": "no-referrer" },
  });
}
