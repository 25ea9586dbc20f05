/**
 * The example checkout (examples/storefront/) served by the local stack at /storefront/ (its page, and its
 * modules and stylesheet by plain name), with what a page without a build step needs beside it: `config.js` (the stack's URL, its anon key, the seed store and the
 * fake Razorpay's checkout script),
 * supabase-js as an ES module (the pinned package's own browser build, dist/umd/supabase.js, with an export
 * added) and the client's browser build (client/dist/create_order_client.js). Files are read per request,
 * so an edit shows on reload.
 */
import { createRequire } from "node:module";

/** The seed's open store (supabase/seed.sql), the page's store unless its URL names another. */
export const SEED_STORE_ID = "11111111-1111-4111-8111-111111111111";

const EXAMPLE = new URL("../examples/storefront/", import.meta.url);
const CLIENT_BUNDLE = new URL("../client/dist/create_order_client.js", import.meta.url);

const _TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

/** supabase-js's browser build as an ES module: the IIFE defines `var supabase`; the module exports it. */
async function _supabaseModule(): Promise<string> {
  // resolved through deno.json's import of @supabase/supabase-js: the very version the functions use
  const path = createRequire(import.meta.url).resolve("@supabase/supabase-js/dist/umd/supabase.js");
  const umd = await Deno.readTextFile(path);
  return `${umd}\nexport const createClient = supabase.createClient;\nexport default supabase;\n`;
}

function _file(text: string, type: string): Response {
  return new Response(text, { headers: { "Content-Type": _TYPES[type], "Cache-Control": "no-cache" } });
}

/** The /storefront/ routes; `origin` is the stack's own URL. Null for a path that is not one of them. */
export async function storefrontResponse(
  pathname: string,
  origin: string,
  anonKey: string,
  local: { checkoutScriptUrl?: string | null } = {},
): Promise<Response | null> {
  switch (pathname) {
    case "/storefront":
      return new Response(null, { status: 308, headers: { Location: "/storefront/" } });
    case "/storefront/":
      return _file(await Deno.readTextFile(new URL("index.html", EXAMPLE)), "html");
    case "/storefront/config.js":
      return _file(
        `export default ${
          JSON.stringify({
            supabaseUrl: origin,
            anonKey,
            storeId: SEED_STORE_ID,
            // the local stack's fake Razorpay: the page loads it for a local key id (rzp_local_…)
            localCheckoutScript: local.checkoutScriptUrl ?? null,
          })
        };\n`,
        "js",
      );
    case "/storefront/vendor/supabase-js.js":
      return _file(await _supabaseModule(), "js");
    case "/storefront/vendor/create_order_client.js":
      return _file(await Deno.readTextFile(CLIENT_BUNDLE), "js");
    default:
      return await _exampleFile(pathname);
  }
}

/** A module or stylesheet of examples/storefront/ by its plain name (no folder, no dots); null if none. */
async function _exampleFile(pathname: string): Promise<Response | null> {
  const match = /^\/storefront\/([a-z_]+)\.(js|css)$/.exec(pathname);
  if (!match) return null;
  try {
    return _file(await Deno.readTextFile(new URL(`${match[1]}.${match[2]}`, EXAMPLE)), match[2]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
