/**
 * The floor the mandated libraries set for a cold start: a trivial Deno.serve on 127.0.0.1:$PORT that
 * eagerly imports what create-order must use (supabase-js's `createClient`, zod), builds a client and
 * a schema at start as the function does, and answers each request at once.
 */
import { createClient } from "@supabase/supabase-js";
import { z } from "zod";

const client = createClient("http://127.0.0.1:9", "floor-key", {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
});
const Body = z.object({ storeId: z.string() }).loose();

Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen: () => {} },
  async (request) => {
    const parsed = Body.safeParse(await request.json().catch(() => null));
    return Response.json({ ok: parsed.success, client: typeof client.rpc });
  },
);
