/**
 * The text rule lives in two places: the function's schema (request_schema.ts over text_rules.ts,
 * phone_number.ts, iso_countries.ts) refuses a request, and create_order (order_text_rule in SQL) refuses
 * what the service key sends to /rest/v1/rpc/create_order directly. One table of examples runs through both:
 * a refused value is refused by the schema (400 VALIDATION_FAILED at the field's path) and by the database
 * when sent as it is (OCN00 at the payload's path); an accepted value is stored by the database exactly as
 * the schema keeps it.
 */
import assert from "node:assert/strict";
import { parseCreateOrderRequest } from "../supabase/functions/create-order/request_schema.ts";
import { OrderError } from "../supabase/functions/_shared/errors.ts";
import { ISO_3166_ALPHA2 } from "../supabase/functions/_shared/orders/iso_countries.ts";
import { checkHttpUrl } from "../supabase/functions/_shared/orders/text_rules.ts";
import { createTestStore } from "./support/catalogue.ts";
import { createOrderPayload, storeRowCounts } from "./support/create_order_payload.ts";
import { sharedPostgres, testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

/** Where a field sits in the request body and in create_order's payload, and the order column it fills. */
const FIELDS = {
  buyerName: { request: ["buyerName"], payload: ["buyer", "name"], column: "buyer_name" },
  buyerPhone: { request: ["buyerPhone"], payload: ["buyer", "phone"], column: "buyer_phone" },
  line1: { request: ["shippingAddress", "line1"], payload: ["shippingAddress", "line1"], column: "line1" },
  line2: { request: ["shippingAddress", "line2"], payload: ["shippingAddress", "line2"], column: "line2" },
  city: { request: ["shippingAddress", "city"], payload: ["shippingAddress", "city"], column: "city" },
  state: { request: ["shippingAddress", "state"], payload: ["shippingAddress", "state"], column: "state" },
  postalCode: {
    request: ["shippingAddress", "postalCode"],
    payload: ["shippingAddress", "postalCode"],
    column: "postalCode",
  },
  country: {
    request: ["shippingAddress", "country"],
    payload: ["shippingAddress", "country"],
    column: "country",
  },
  paymentProofUrl: {
    request: ["paymentProofUrl"],
    payload: ["paymentProofUrl"],
    column: "payment_proof_url",
  },
} as const;
type Field = keyof typeof FIELDS;

const EMOJI = "\u{1f600}"; // one character, two UTF-16 code units
const DIGIT = "\u{1d7ce}"; // MATHEMATICAL BOLD DIGIT ZERO: past U+FFFF, unchanged by NFC

/** The table: [field, the value sent, the value kept (null: none)] of what both accept... */
const ACCEPTED: [Field, string, string | null][] = [
  // trimmed, NFC, any script, up to the length in characters (code points): past U+FFFF one each
  ["buyerName", "  Asha Rao  ", "Asha Rao"],
  ["buyerName", "Jose\u0301", "Jos\u00e9"],
  ["buyerName", "\u0906\u0936\u093e \u0930\u093e\u0935", "\u0906\u0936\u093e \u0930\u093e\u0935"],
  ["buyerName", "\u05e9\u05dc\u05d5\u05dd", "\u05e9\u05dc\u05d5\u05dd"], // right to left, no controls
  ["buyerName", "O'Brien & Sons <Ltd>", "O'Brien & Sons <Ltd>"],
  ["buyerName", "\u200bA", "\u200bA"], // something visible besides
  ["buyerName", "x".repeat(200), "x".repeat(200)],
  ["buyerName", EMOJI.repeat(100), EMOJI.repeat(100)],
  ["buyerName", EMOJI.repeat(101), EMOJI.repeat(101)], // 202 UTF-16 units: was refused by both
  ["buyerName", EMOJI.repeat(200), EMOJI.repeat(200)],
  ["buyerName", `${"x".repeat(199)}${EMOJI}`, `${"x".repeat(199)}${EMOJI}`],
  ["buyerName", ` ${EMOJI.repeat(199)}e\u0301 `, `${EMOJI.repeat(199)}\u00e9`], // 200 once trimmed and NFC
  ["line2", DIGIT.repeat(200), DIGIT.repeat(200)],
  ["postalCode", DIGIT.repeat(20), DIGIT.repeat(20)],
  ["line1", "12 MG Road", "12 MG Road"],
  ["line2", "   ", null], // only spaces: none
  ["line2", " Flat 4 ", "Flat 4"],
  ["city", "Zoe\u0308", "Zo\u00eb"],
  ["state", "MH", "MH"],
  ["postalCode", "x".repeat(20), "x".repeat(20)],
  ["country", "in", "IN"],
  ["country", " GB ", "GB"],
  ["buyerPhone", "+91 98765 43210", "+919876543210"],
  ["buyerPhone", "+1 (415) 555-0100", "+14155550100"],
  // any space of Unicode separates, as pasted from a phone's contacts: no-break, narrow no-break, ideographic
  ["buyerPhone", "+91\u00a098450\u00a012345", "+919845012345"],
  ["buyerPhone", "+91\u202f98450\u202f12345", "+919845012345"],
  ["buyerPhone", "+91\u300098450\u200a12345", "+919845012345"],
  ["paymentProofUrl", "https://bank.example/upi/123.png", "https://bank.example/upi/123.png"],
  ["paymentProofUrl", "HTTPS://Bank.Example/a b?x=1", "https://bank.example/a%20b?x=1"],
  ["paymentProofUrl", "https://bank.example", "https://bank.example/"],
  ["paymentProofUrl", "http://[::1]:8080/p", "http://[::1]:8080/p"],
  // what the serialiser leaves raw in a path (^ | [ ]), a query (` { } | \) and a fragment (' { } | \)
  [
    "paymentProofUrl",
    "https://bank.example/a^b|[c]?q=`{}|\\#f'{}|\\",
    "https://bank.example/a^b|[c]?q=`{}|\\#f'{}|\\",
  ],
  // ...and what it writes another way: each of these is refused by the database as sent (see below)
  ["paymentProofUrl", "https://bank.example/<x>", "https://bank.example/%3Cx%3E"],
  ["paymentProofUrl", 'https://bank.example/"x', "https://bank.example/%22x"],
  ["paymentProofUrl", "https://bank.example/a`b{c}", "https://bank.example/a%60b%7Bc%7D"],
  ["paymentProofUrl", "https://bank.example\\upi\\1.png", "https://bank.example/upi/1.png"],
  ["paymentProofUrl", "https://bank.example/a/./b/../c/%2e%2E/d", "https://bank.example/a/d"],
  ["paymentProofUrl", "https://bank.example/p?q='x'", "https://bank.example/p?q=%27x%27"],
  ["paymentProofUrl", "https://bank.example/p#<f>`", "https://bank.example/p#%3Cf%3E%60"],
  ["paymentProofUrl", "https://bank.example:443/p", "https://bank.example/p"],
  ["paymentProofUrl", "https://bank.example:0443/p", "https://bank.example/p"],
  ["paymentProofUrl", "http://bank.example:80/p", "http://bank.example/p"],
  ["paymentProofUrl", "https://bank.example:/p", "https://bank.example/p"],
  ["paymentProofUrl", "https://[0:0::1]/p", "https://[::1]/p"],
  ["paymentProofUrl", "https://[::FFFF:1.2.3.4]/p", "https://[::ffff:102:304]/p"],
  ["paymentProofUrl", "http://[1:0:0:0:1:0:0:1]/p", "http://[1::1:0:0:1]/p"],
];

/** ...and [field, the value sent] of what both refuse. */
const REFUSED: [Field, string][] = [
  // control characters (CR, LF, TAB, C0, DEL, C1) and line separators
  ["buyerName", "Asha\nRao"],
  ["buyerName", "A\rB"],
  ["buyerName", "A\tB"],
  ["buyerName", "Asha\u0007"],
  ["buyerName", "Asha\u007f"],
  ["buyerName", "Asha\u0085Rao"],
  ["line1", "Flat 4\u2028PAYMENT"],
  ["line2", "A\nB"],
  // bidi embeddings, overrides and isolates; the directional marks; noncharacters and specials
  ["buyerName", "\u202eevil"],
  ["city", "A\u202aB"],
  ["state", "A\u2066B"],
  ["buyerName", "A\u2069B"],
  ["buyerName", "A\u200eB"],
  ["buyerName", "A\u200fB"],
  ["line1", "A\u061cB"],
  ["buyerName", "A\uffffB"],
  ["buyerName", "A\ufffeB"],
  ["buyerName", "A\ufff9B"],
  ["buyerName", "A\ufffcB"],
  ["city", "A\ufff0B"],
  ["buyerName", "A\ufdd0B"],
  ["buyerName", "A\ufdefB"],
  // nothing visible
  ["buyerName", "   "],
  ["buyerName", "\u200b"],
  ["buyerName", "\u3164"],
  ["buyerName", "\u2800"],
  ["buyerName", "\u0301\u0301"],
  ["buyerName", "\u00a0\u2003"],
  ["line1", ""],
  ["line1", " "],
  ["city", "\u3164\u200b"],
  // lengths
  ["buyerName", "x".repeat(201)],
  ["buyerName", EMOJI.repeat(201)],
  ["buyerName", `${"x".repeat(200)}${EMOJI}`],
  ["line2", DIGIT.repeat(201)],
  ["postalCode", "x".repeat(21)],
  ["postalCode", DIGIT.repeat(21)],
  // the country: an assigned ISO 3166-1 alpha-2 code
  ["country", "XX"],
  ["country", "ZZ"],
  ["country", "IND"],
  ["country", ""],
  ["country", "\u0131N"], // dotless i: upper-cased it would read IN
  // the phone: E.164
  ["buyerPhone", "919876543210"],
  ["buyerPhone", "+0123456789"],
  ["buyerPhone", "+12345"],
  ["buyerPhone", "+1234567890123456"],
  ["buyerPhone", "+91\t98765 43210"],
  ["buyerPhone", "+91\u202898765 43210"], // a line separator is no space
  ["buyerPhone", "+91\u200b9876543210"], // nor is a zero-width space (no Zs)
  ["buyerPhone", `+91${" ".repeat(40)}9876543210`],
  // the proof link: an absolute http(s) URL, at most 2048 characters, no user name or password
  ["paymentProofUrl", "javascript:alert(1)"],
  ["paymentProofUrl", "data:text/html,<script>alert(1)</script>"],
  ["paymentProofUrl", "ftp://bank.example/x"],
  ["paymentProofUrl", "https://bank.example@evil.example/"],
  ["paymentProofUrl", "not a url"],
  ["paymentProofUrl", "http://1.2.3.256/"],
  ["paymentProofUrl", `https://bank.example/${"a".repeat(2048)}`],
];

/** Every case: the value kept, or "refused". */
const CASES: [Field, string, string | null | "refused"][] = [
  ...ACCEPTED,
  ...REFUSED.map(([field, value]): [Field, string, "refused"] => [field, value, "refused"]),
];

/** What `field` holding `value` makes of a valid upi_direct request or payload (paths as `path`). */
function _with<T extends object>(base: T, path: readonly string[], value: unknown): T {
  const copy = structuredClone(base) as unknown as Record<string, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path[path.length - 1]] = value;
  return copy as unknown as T;
}

const REQUEST = {
  storeId: crypto.randomUUID(),
  buyerEmail: "asha@example.com",
  buyerName: "Asha Rao",
  buyerPhone: "+919876543210",
  shippingAddress: { line1: "12 MG Road", city: "Pune", state: "MH", postalCode: "411001", country: "IN" },
  items: [{ productId: crypto.randomUUID(), quantity: 1, price: 349 }],
  paymentMethod: "upi_direct",
  paymentProofUrl: "https://bank.example/upi/1.png",
};

/** The case's title: the field and the value, escaped so every character shows. */
function _title(field: Field, value: string, kept: string | null | "refused"): string {
  const shown = value.length > 40
    ? `${JSON.stringify(value.slice(0, 12))}... (${value.length} units)`
    : JSON.stringify(value);
  return `${field} ${
    shown.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  }: ${kept === "refused" ? "refused" : "accepted"}`;
}

Deno.test("parseCreateOrderRequest() keeps or refuses each value of the text rule's table", async (t) => {
  for (const [field, value, kept] of CASES) {
    const refused = kept === "refused";
    await t.step(_title(field, value, kept), () => {
      const request = _with(REQUEST, FIELDS[field].request, value);
      if (refused) {
        assert.throws(() => parseCreateOrderRequest(request), (error: unknown) => {
          assert.ok(error instanceof OrderError);
          assert.equal(error.code, "VALIDATION_FAILED");
          const paths = (error.details as { path: string }[]).map((d) => d.path);
          assert.deepEqual(paths, [FIELDS[field].request.join(".")]);
          return true;
        });
        return;
      }
      const parsed = parseCreateOrderRequest(request) as unknown as Record<string, unknown>;
      const path = FIELDS[field].request;
      const got = path.length === 1 ? parsed[path[0]] : (parsed[path[0]] as Record<string, unknown>)[path[1]];
      assert.equal(got, kept);
    });
  }
});

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] POST /rest/v1/rpc/create_order with the service key refuses (OCN00, the payload's path) each value the schema refuses, and stores each accepted one as the schema keeps it`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const store = await createTestStore(db);
      const stack = await startTestStack({ db });
      const good = createOrderPayload(store, {
        paymentMethod: "upi_direct",
        gatewayMethod: null,
        paymentProofUrl: "https://bank.example/upi/1.png",
        feeMinor: 0,
        finalMinor: 69_800,
      });
      const rpc = (payload: unknown) =>
        fetch(`${stack.url}/rest/v1/rpc/create_order`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            apikey: stack.serviceKey,
            Authorization: `Bearer ${stack.serviceKey}`,
          },
          body: JSON.stringify({ payload }),
        });
      try {
        for (const [field, value, kept] of CASES) {
          const refused = kept === "refused";
          await t.step(_title(field, value, kept), async () => {
            // a refused value as it was sent; an accepted one as the schema hands it on
            const sent = refused ? value : kept;
            const res = await rpc({
              ..._with(good, FIELDS[field].payload, sent),
              orderedAt: new Date().toISOString(),
            });
            const body = await res.json();
            if (refused) {
              assert.equal(res.status, 400, JSON.stringify(body));
              assert.equal(body.code, "OCN00");
              assert.deepEqual(JSON.parse(body.details).map((d: { path: string }) => d.path), [
                FIELDS[field].payload.join("."),
              ]);
              return;
            }
            assert.equal(res.status, 200, JSON.stringify(body));
            const column = FIELDS[field].column;
            const [row] = await db.query<{ value: string | null }>(
              column.includes("_")
                ? `select ${column} as value from public.orders where id = $1`
                : `select shipping_address ->> '${column}' as value from public.orders where id = $1`,
              [body.response.orderId],
            );
            assert.equal(row.value, kept);
          });
        }
      } finally {
        await stack.close();
      }
    },
  });

  // pins a past bug: the database stored `https://bank.example/<x>`, `.../"x` and `...:443/p` as sent, where
  // the function stores `%3Cx%3E`, `%22x` and no port
  Deno.test({
    name:
      `[${name}] POST /rest/v1/rpc/create_order with the service key refuses (OCN00, paymentProofUrl) each proof URL of the table as sent where the schema keeps another serialisation`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const store = await createTestStore(db);
      const stack = await startTestStack({ db });
      const good = createOrderPayload(store, {
        paymentMethod: "upi_direct",
        gatewayMethod: null,
        paymentProofUrl: "https://bank.example/upi/1.png",
        feeMinor: 0,
        finalMinor: 69_800,
      });
      try {
        const reserialised = ACCEPTED.filter(([field, value, kept]) =>
          field === "paymentProofUrl" && value !== kept
        );
        for (const [field, value] of reserialised) {
          await t.step(_title(field, value, "refused"), async () => {
            const res = await fetch(`${stack.url}/rest/v1/rpc/create_order`, {
              method: "POST",
              headers: {
                "Content-Type": "application/json",
                apikey: stack.serviceKey,
                Authorization: `Bearer ${stack.serviceKey}`,
              },
              body: JSON.stringify({
                payload: { ...good, paymentProofUrl: value, orderedAt: new Date().toISOString() },
              }),
            });
            const body = await res.json();
            assert.equal(res.status, 400, JSON.stringify(body));
            assert.equal(body.code, "OCN00");
            assert.deepEqual(JSON.parse(body.details).map((d: { path: string }) => d.path), [
              "paymentProofUrl",
            ]);
          });
        }
        assert.equal((await storeRowCounts(db, store.storeId)).orders, 0);
      } finally {
        await stack.close();
      }
    },
  });

  Deno.test({
    name: `[${name}] is_country_code() holds exactly the codes iso_countries.ts holds`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
      const all = [...letters].flatMap((a) => [...letters].map((b) => a + b));
      const [{ codes }] = await db.query<{ codes: string[] }>(
        "select coalesce(array_agg(c order by c), '{}') as codes from unnest($1::text[]) c where public.is_country_code(c)",
        [all],
      );
      assert.deepEqual(codes, [...ISO_3166_ALPHA2].sort());
    },
  });
}

// every code point once: on PostgreSQL only (PGlite runs the same regular expression engine, four times slower)
const postgres = await sharedPostgres();
Deno.test({
  name:
    `[postgres] has_visible_character() finds nothing visible in exactly the characters text_rules.ts finds invisible, over every code point`,
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const invisible = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\u2800]$/u;
    const differ: string[] = [];
    // every code point but NUL and the surrogates, in chunks the server takes at once
    for (let start = 1; start <= 0x10ffff; start += 0x10000) {
      const points: number[] = [];
      for (let cp = start; cp < Math.min(start + 0x10000, 0x110000); cp++) {
        if (cp < 0xd800 || cp > 0xdfff) points.push(cp);
      }
      const [{ visible }] = await postgres!.query<{ visible: boolean[] }>(
        "select array_agg(public.has_visible_character(c) order by n) as visible from unnest($1::text[]) with ordinality as u(c, n)",
        [points.map((cp) => String.fromCodePoint(cp))],
      );
      points.forEach((cp, i) => {
        if (visible[i] === invisible.test(String.fromCodePoint(cp))) differ.push(cp.toString(16));
      });
    }
    assert.deepEqual(differ.slice(0, 20), [], `${differ.length} code points differ`);
  },
});

/** A small seeded generator (mulberry32), so the candidates below are the same on every run. */
function _seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Hosts, ports and pieces of paths, queries and fragments the URL serialiser keeps, rewrites or refuses. */
const URL_PARTS = {
  schemes: ["https", "http", "HTTPS", "Http"],
  hosts: [
    "bank.example",
    "BANK.example",
    "bank.example.",
    "a_b.example",
    "-a.example",
    "a..b",
    'a"b{c}`d.example',
    "b\u00e4nk.example",
    "xn--bnk-qla.example",
    "1.2.3.4",
    "1.2.3.04",
    "1.2.3",
    "1.2.3.4.",
    "0x7f.1",
    "256.1.1.1",
    "[::1]",
    "[0:0::1]",
    "[::ffff:102:304]",
    "[::FFFF:1.2.3.4]",
    "[1:0:0:1::1]",
    "[1::1:0:0:1]",
    "[1:0:0:0:1:0:0:1]",
    "[0:1:0:0:1::]",
    "[::]",
    "[1::]",
    "[1:2:3:4:5:6:7:8]",
    "[1:2:3:4:5:6:7::]",
    "[1:0:3:4:5:6:7:8]",
    "[1::3:4:5:6:7:8]",
    "[01::1]",
    "[::1.2.3.4]",
    "[1:2:3:4:5:6:7]",
  ],
  ports: ["", ":443", ":80", ":0443", ":8080", ":0", ":", ":65535"],
  pieces: [
    "a",
    "A",
    "0",
    ".",
    "..",
    "/",
    "?",
    "#",
    "%",
    "%2e",
    "%2E",
    "%41",
    "\\",
    '"',
    "<",
    ">",
    "`",
    "{",
    "}",
    "^",
    "|",
    "'",
    " ",
    "[",
    "]",
    ":",
    "@",
    "!",
    "$",
    "&",
    "(",
    ")",
    "*",
    "+",
    ",",
    ";",
    "=",
    "_",
    "~",
    "-",
    "\u00e4",
    "\t",
    "\n",
  ],
};

Deno.test({
  name:
    "[postgres] is_http_url() accepts a generated http(s) URL exactly when Deno's URL parser serialises it to itself",
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const random = _seeded(17);
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
    const candidates = new Set<string>();
    while (candidates.size < 4_000) {
      let tail = "/";
      for (let n = Math.floor(random() * 6); n > 0; n--) tail += pick(URL_PARTS.pieces);
      candidates.add(`${pick(URL_PARTS.schemes)}://${pick(URL_PARTS.hosts)}${pick(URL_PARTS.ports)}${tail}`);
    }
    const list = [...candidates];
    const [{ accepted }] = await postgres!.query<{ accepted: boolean[] }>(
      "select array_agg(public.is_http_url(u, 2048) order by n) as accepted from unnest($1::text[]) with ordinality as c(u, n)",
      [list],
    );
    const differ = list.filter((url, i) => {
      const kept = checkHttpUrl(url, 2048);
      return accepted[i] !== (kept.ok && kept.text === url);
    });
    assert.deepEqual(differ.slice(0, 20), [], `${differ.length} of ${list.length} differ`);
  },
});
