/**
 * The PostgREST stand-in's read route (`GET /rest/v1/<table>`): the subset supabase-js sends for
 * `.from(t).select(cols).eq(col, v)` with `order` and `limit`, under the request's role and RLS, so a
 * storefront reads the public catalogue with the anon key as it would on Supabase.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { createSigningKey, mintUserToken } from "../local/auth_keys.ts";
import { MAX_ROWS, parseReadQuery, readSql } from "../local/postgrest_read.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

Deno.test("parseReadQuery() reads select, eq filters, order and limit, and refuses the rest of PostgREST's grammar", async (t) => {
  assert.deepEqual(
    parseReadQuery(
      new URLSearchParams("select=id,name&store_id=eq.s1&is_active=eq.true&order=name.desc,id&limit=5"),
    ),
    {
      columns: ["id", "name"],
      filters: [["store_id", "s1"], ["is_active", "true"]],
      order: [["name", "desc"], ["id", "asc"]],
      limit: 5,
    },
  );
  assert.deepEqual(parseReadQuery(new URLSearchParams("")), {
    columns: "*",
    filters: [],
    order: [],
    limit: null,
  });
  for (
    const query of [
      "select=*,order_items(*)",
      "select=total:final_amount",
      "select=price::text",
      "price=gt.1",
      "name=like.*tea*",
      "offset=10",
      "order=name.desc.nullslast",
      "limit=-1",
      "or=(a.eq.1,b.eq.2)",
      'select="id"',
    ]
  ) {
    await t.step(query, () => assert.ok("refused" in parseReadQuery(new URLSearchParams(query))));
  }
});

Deno.test("readSql() quotes every identifier and passes every value as a parameter", () => {
  const query = parseReadQuery(new URLSearchParams("select=id&name=eq.x' or '1'='1&limit=2"));
  assert.ok(!("refused" in query));
  assert.deepEqual(readSql("products", query), {
    text:
      `select coalesce(json_agg(r), '[]'::json)::text as body, count(*)::int as rows from (select "id" from public."products" where "name" = $1 limit 2) r`,
    params: ["x' or '1'='1"],
  });
});

Deno.test("readSql() caps every read at supabase/config.toml's max_rows, as Supabase's PostgREST does", async () => {
  const toml = await Deno.readTextFile(new URL("../supabase/config.toml", import.meta.url));
  assert.match(toml, new RegExp(`^max_rows = ${MAX_ROWS}$`, "m"));
  assert.equal(MAX_ROWS, 1000);
  const limit = (params: string) => {
    const query = parseReadQuery(new URLSearchParams(params));
    assert.ok(!("refused" in query));
    return / limit (\d+)\) r$/.exec(readSql("products", query).text)?.[1];
  };
  assert.deepEqual([limit(""), limit("limit=5"), limit("limit=5000")], ["1000", "5", "1000"]);
});

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("GET /rest/v1/<table> serves a storefront the active catalogue with the anon key through supabase-js", async () => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db });
    try {
      const client = createClient(stack.url, stack.anonKey, { auth: { persistSession: false } });
      const products = await client.from("products").select("id,name,price,stock_quantity")
        .eq("store_id", store.storeId).order("price", { ascending: false }).limit(2);
      assert.equal(products.error, null);
      assert.deepEqual(products.data, [
        { id: store.products[0].id, name: "Assam Tea 250 g", price: 349, stock_quantity: null },
        { id: store.products[2].id, name: "Steel Tumbler", price: 250, stock_quantity: null },
      ]);
      // the inactive product and the retired variant are hidden by RLS
      const all = await client.from("products").select("id").eq("store_id", store.storeId);
      assert.equal(all.data!.length, 3);
      const variants = await client.from("product_variants").select("id,name,price")
        .eq("product_id", store.products[2].id).order("name");
      assert.deepEqual(variants.data, [
        { id: store.variants[1].id, name: "Large 400 ml", price: 299 },
        { id: store.variants[0].id, name: "Small 200 ml", price: null },
      ]);
      const stores = await client.from("stores").select("id,name,currency").eq("id", store.storeId);
      assert.deepEqual(stores.data, [{ id: store.storeId, name: "Test Store", currency: "INR" }]);
      // owner_email is not granted: select=* on stores is refused, as PostgREST refuses it
      const everything = await client.from("stores").select("*").eq("id", store.storeId);
      assert.equal(everything.error?.code, "42501");
      assert.equal(everything.status, 401);
    } finally {
      await stack.close();
    }
  });

  test("GET /rest/v1/<table> answers at most max_rows (1000) rows, with PostgREST's Content-Range, however many match", async () => {
    const store = await createTestStore(db);
    await db.query(
      `insert into public.products (store_id, name, price)
       select $1, 'Bulk ' || g, 1.00 from generate_series(1, 1005) g`,
      [store.storeId],
    );
    const stack = await startTestStack({ db });
    try {
      const get = async (query: string) => {
        const res = await fetch(
          `${stack.url}/rest/v1/products?select=id&store_id=eq.${store.storeId}${query}`,
          {
            headers: { apikey: stack.anonKey },
          },
        );
        return [res.status, res.headers.get("content-range"), (await res.json()).length];
      };
      assert.deepEqual(await get(""), [200, "0-999/*", 1000]);
      assert.deepEqual(await get("&limit=5000"), [200, "0-999/*", 1000]);
      assert.deepEqual(await get("&limit=3"), [200, "0-2/*", 3]);
      assert.deepEqual(await get("&name=eq.none"), [200, "*/*", 0]);
    } finally {
      await stack.close();
    }
  });

  test("GET /rest/v1/<table> answers PostgREST's errors: 401 for a bad or expired user JWT, 404 for an unknown table, 400 beyond the subset", async () => {
    const stack = await startTestStack({ db });
    try {
      const get = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${stack.url}/rest/v1/${path}`, { headers: { apikey: stack.anonKey, ...headers } });
      const expired = await mintUserToken(stack.signingKey, { sub: crypto.randomUUID(), expiresIn: -1 });
      const foreign = await mintUserToken(await createSigningKey(), { sub: crypto.randomUUID() });
      const cases: [string, Record<string, string>, number, string | undefined][] = [
        ["products?select=id", { Authorization: `Bearer ${expired}` }, 401, "PGRST303"],
        ["products?select=id", { Authorization: `Bearer ${foreign}` }, 401, "PGRST301"],
        ["products?select=id", { Authorization: "Bearer nonsense" }, 401, "PGRST301"],
        ["no_such_table?select=id", {}, 404, "42P01"],
        ["products?select=id,no_such_column", {}, 400, "42703"],
        ["products?select=*,product_variants(*)", {}, 400, "PGRST100"],
        ["products?price=gt.1", {}, 400, "PGRST100"],
        ["products?select=id", { Prefer: "count=exact" }, 400, "PGRST100"],
        ["products?id=eq.not-a-uuid", {}, 400, "22P02"],
        ["products?select=id", { Accept: "application/vnd.pgrst.object+json" }, 406, "PGRST107"],
        ["products?select=id", { "Accept-Profile": "private" }, 406, "PGRST106"],
      ];
      for (const [path, headers, status, code] of cases) {
        const res = await get(path, headers);
        assert.equal(res.status, status, `${path} ${JSON.stringify(headers)}`);
        assert.equal((await res.json()).code, code, path);
      }
      const noKey = await fetch(`${stack.url}/rest/v1/products?select=id`);
      assert.equal(noKey.status, 401);
      await noKey.body?.cancel();
    } finally {
      await stack.close();
    }
  });
}
