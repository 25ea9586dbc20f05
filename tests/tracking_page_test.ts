/** The README's tracking page is the one the local stack serves, and it shows buyer data only as text. */
import assert from "node:assert/strict";
import { PLACEHOLDER_TRACK_ORDER_URL, trackingPage } from "../local/tracking_page.ts";

const ROOT = new URL("../", import.meta.url);

Deno.test("README shows the tracking page the local stack serves at /track, word for word", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const page = await Deno.readTextFile(new URL("local/tracking_page.html", ROOT));
  const blocks = [...readme.matchAll(/```html\n([\s\S]*?)```/g)].map((match) => match[1]);
  assert.deepEqual(blocks, [page]);
});

Deno.test("trackingPage() points the page at the stack's track-order, keeps the token out of Referer, and writes no HTML from the answer", async () => {
  const res = trackingPage("http://127.0.0.1:5555");
  assert.equal(res.headers.get("referrer-policy"), "no-referrer");
  const html = await res.text();
  assert.ok(html.includes('"http://127.0.0.1:5555/functions/v1/track-order"'));
  assert.ok(!html.includes(PLACEHOLDER_TRACK_ORDER_URL));
  assert.ok(html.includes('<meta name="referrer" content="no-referrer">'));
  assert.ok(!/innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(html));
});
