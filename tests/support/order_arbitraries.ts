/**
 * fast-check generators of create-order request bodies for one catalogue: valid orders (with the
 * amounts the fee module computes for them), valid orders with hostile text in one field, and hostile
 * mutations of valid orders, as request body text.
 */
import fc from "fast-check";
import { checkFreeText } from "../../supabase/functions/_shared/orders/text_rules.ts";
import { MAX_BODY_BYTES } from "../../supabase/functions/_shared/http/request_body.ts";
import {
  type GatewayMethod,
  type OrderAmounts,
  priceOrder,
} from "../../supabase/functions/_shared/orders/money.ts";

/** What the generators may order: one store's products (prices in minor units) and their variants. */
export interface FuzzCatalogue {
  storeId: string;
  products: { id: string; priceMinor: number; variants: { id: string; priceMinor: number | null }[] }[];
}

/** A valid order body, the amounts the fee module computes for it and its text as stored (NFC). */
export interface ValidCase {
  kind: "valid";
  body: Record<string, unknown>;
  text: string;
  expected: OrderAmounts;
  stored: { buyerName: string; city: string };
}

/** A valid body with one text field replaced by hostile text: refused at exactly that field's path. */
export interface HostileTextCase {
  kind: "hostile";
  textClass: string;
  path: string;
  text: string;
}

/** A mutated body, sent as text (or bytes), with the mutations that made it, for the failure report. */
export interface MutatedCase {
  kind: "mutated";
  mutations: string[];
  text: string | Uint8Array<ArrayBuffer>;
}

const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "A\u0000B",
  "\ud800",
  "x\udfffy",
  "\u202eevil",
  "😀",
  "<script>alert(1)</script>",
  "' or 1=1 --",
  "${jndi:ldap://x}",
  "A\r\nBcc: victim@example.com",
  "javascript:alert(1)",
  "%00",
  "null",
  "NaN",
];

const ODD_NUMBERS = [
  -1,
  0,
  -0,
  0.001,
  1.005,
  0.1 + 0.2,
  10_001,
  1e21,
  -1e21,
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 1,
  1e308,
  5e-324,
  9999999999.99,
  99999999999.99,
];

const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "storeid",
  "extra",
];

function _nest(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** Any JSON-ish value an attacker might put in a field. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(...ODD_NUMBERS),
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer({ min: 190, max: 3000 }).map((n) => "é".repeat(n)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 1, max: 2000 }).map((depth) => _nest(depth, 1)),
  fc.uuid(),
);

const nameText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: 20 }).map((s) => `A${s}`),
  },
  // decomposed (NFD) text: accepted, stored composed (NFC)
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "Jose\u0301",
      "Zoe\u0308 Mu\u0308ller",
      "A\u030angstro\u0308m",
      "Ame\u0301lie",
    ),
  },
).filter((s) => checkFreeText(s, 200).ok); // the rule itself, so valid text never holds what it refuses

const _AROUND = fc.constantFrom("", "Asha", "12 MG Road ", " Flat 4");

/**
 * Text of each class the text rule refuses: control characters (C0 with CR, LF and TAB, DEL, C1, the
 * Unicode line separators), bidi embeddings, overrides and isolates, values with nothing visible, and the
 * forged e-mail section of a past bug.
 */
export const HOSTILE_TEXT: Record<string, fc.Arbitrary<string>> = {
  control: fc.tuple(
    _AROUND,
    fc.constantFrom(..."\u0000\u0007\b\t\n\u000b\f\r\u001b\u007f\u0080\u0085\u009b\u009f\u2028\u2029"),
    _AROUND,
  ).map(([before, char, after]) => `${before}${char}${after}`),
  bidi: fc.tuple(
    _AROUND,
    fc.constantFrom(..."\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
    _AROUND,
  )
    .map(([before, char, after]) => `${before}${char}${after}`),
  marksAndNoncharacters: fc.tuple(
    _AROUND,
    fc.constantFrom(..."\u200e\u200f\u061c\ufdd0\ufdef\ufff0\ufff9\ufffa\ufffb\ufffc\ufffd\uffff"),
    _AROUND,
  ).map(([before, char, after]) => `${before}${char}${after}`),
  invisible: fc.array(
    fc.constantFrom(
      " ",
      "\u00a0",
      "\u2003",
      "\u200b",
      "\u200c",
      "\u200d",
      "\u2060",
      "\ufeff",
      "\u00ad",
      "\u034f",
      "\u3164",
      "\uffa0",
      "\u115f",
      "\u1160",
      "\u2800",
      "\u0301",
      "\u0308",
    ),
    { minLength: 1, maxLength: 6 },
  ).map((chars) => chars.join("")).filter((text) => text.trim() !== ""), // only spaces is "empty" (or no line2)
  forged: fc.constant(
    "Flat 4\n\nPAYMENT\nPaid online through the payment gateway, verified automatically. Ship now.",
  ),
};

const _TEXT_FIELDS = [
  ["buyerName"],
  ["shippingAddress", "line1"],
  ["shippingAddress", "line2"],
  ["shippingAddress", "city"],
  ["shippingAddress", "state"],
  ["shippingAddress", "postalCode"],
] as const;

function _validBody(catalogue: FuzzCatalogue): fc.Arbitrary<ValidCase> {
  const item = fc.record({
    product: fc.constantFrom(...catalogue.products),
    variantPick: fc.nat(),
    quantity: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 10_000 })),
  }).map(({ product, variantPick, quantity }) => {
    const variant = product.variants.length > 0
      ? product.variants[variantPick % product.variants.length]
      : undefined;
    const priceMinor = variant?.priceMinor ?? product.priceMinor;
    return {
      body: {
        productId: product.id,
        ...(variant ? { variantId: variant.id } : {}),
        quantity,
        price: priceMinor / 100,
      },
      line: { unitPriceMinor: priceMinor, quantity },
    };
  });
  const payment = fc.oneof(
    fc.record({
      paymentMethod: fc.constant("upi_direct" as const),
      paymentProofUrl: fc.webUrl({ validSchemes: ["https", "http"] }),
    }),
    fc.record({
      paymentMethod: fc.constant("gateway" as const),
      gatewayMethod: fc.option(fc.constantFrom<GatewayMethod>("card", "upi", "wallet"), { nil: undefined }),
    }, { requiredKeys: ["paymentMethod"] }),
  );
  return fc.record({
    items: fc.array(item, { minLength: 1, maxLength: 6 }),
    payment,
    buyerName: nameText,
    buyerEmail: fc.stringMatching(/^[a-z0-9][a-z0-9_+-]{0,20}[a-z0-9]@[a-z0-9]{1,12}\.(com|in|co\.uk)$/),
    digits: fc.stringMatching(/^[1-9][0-9]{7,13}$/),
    city: nameText,
    line2: fc.option(nameText, { nil: undefined }),
    country: fc.constantFrom("IN", "in", "US", "gb", "De"),
  }).map(({ items, payment, buyerName, buyerEmail, digits, city, line2, country }) => {
    const body = {
      storeId: catalogue.storeId,
      buyerEmail,
      buyerName,
      buyerPhone: `+${digits}`,
      shippingAddress: {
        line1: "12 MG Road",
        ...(line2 === undefined ? {} : { line2 }),
        city,
        state: "Maharashtra",
        postalCode: "411001",
        country,
      },
      items: items.map((i) => i.body),
      ...payment,
    };
    const gatewayMethod = payment.paymentMethod === "gateway" ? payment.gatewayMethod ?? "card" : null;
    return {
      kind: "valid" as const,
      body,
      text: JSON.stringify(body),
      expected: priceOrder(items.map((i) => i.line), payment.paymentMethod, gatewayMethod),
      stored: { buyerName: buyerName.trim().normalize("NFC"), city: city.trim().normalize("NFC") },
    };
  });
}

/** Every path of a JSON value down to the request's own depth (4), e.g. ["items", 0, "price"]. */
function _paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object" || prefix.length >= 4) return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => _paths(child, [...prefix, key]))];
}

type _Node = Record<string | number, unknown>;

function _at(root: unknown, path: (string | number)[]): _Node {
  return path.reduce<unknown>((node, key) => (node as _Node)[key], root) as _Node;
}

function _defineOwn(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  // an own property even for "__proto__", so JSON.stringify writes it as a plain key
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type _Mutation = { describe: string; apply: (body: Record<string, unknown>) => Record<string, unknown> };

const structuralMutation: fc.Arbitrary<_Mutation> = fc.oneof(
  fc.tuple(fc.nat(), weirdValue).map(([pick, value]): _Mutation => ({
    describe: `set #${pick} = ${_short(value)}`,
    apply(body) {
      const paths = _paths(body).filter((p) => p.length > 0);
      const path = paths[pick % paths.length];
      _defineOwn(_at(body, path.slice(0, -1)), path[path.length - 1], value);
      return body;
    },
  })),
  fc.nat().map((pick): _Mutation => ({
    describe: `delete #${pick}`,
    apply(body) {
      const paths = _paths(body).filter((p) => p.length > 0);
      const path = paths[pick % paths.length];
      const parent = _at(body, path.slice(0, -1));
      if (Array.isArray(parent)) parent.splice(Number(path[path.length - 1]), 1);
      else delete parent[path[path.length - 1]];
      return body;
    },
  })),
  fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 10 })), weirdValue)
    .map(([pick, key, value]): _Mutation => ({
      describe: `add ${JSON.stringify(key)} at #${pick} = ${_short(value)}`,
      apply(body) {
        const objects = _paths(body).filter((p) => {
          const node = _at(body, p);
          return node !== null && typeof node === "object" && !Array.isArray(node);
        });
        const path = objects[pick % objects.length];
        _defineOwn(_at(body, path), key, key === "__proto__" ? { polluted: true, isAdmin: true } : value);
        return body;
      },
    })),
  fc.integer({ min: 101, max: 140 }).map((n): _Mutation => ({
    describe: `${n} items`,
    apply(body) {
      const items = body.items;
      if (!Array.isArray(items) || items.length === 0) return body;
      body.items = Array.from({ length: n }, (_, i) => items[i % items.length]);
      return body;
    },
  })),
);

type _RawMutation = { describe: string; apply: (text: string) => string | Uint8Array<ArrayBuffer> };

const rawMutation: fc.Arbitrary<_RawMutation> = fc.oneof(
  fc.tuple(fc.constantFrom("storeId", "paymentMethod", "items", "buyerEmail"), weirdValue).map((
    [key, value],
  ): _RawMutation => ({
    describe: `duplicate key ${key} = ${_short(value)}`,
    apply: (text) => `${text.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}}`,
  })),
  fc.constantFrom("NaN", "Infinity", "-Infinity", "1e400", "-1e400", "0x10", "1_000", "01", "+1", ".5")
    .map((token): _RawMutation => ({
      describe: `number token ${token}`,
      apply: (text) => text.replace(/"quantity":\d+/, `"quantity":${token}`),
    })),
  fc.nat().map((cut): _RawMutation => ({
    describe: `truncate at ${cut}`,
    apply: (text) => text.slice(0, cut % Math.max(text.length, 1)),
  })),
  fc.integer({ min: 1, max: 20_000 }).map((depth): _RawMutation => ({
    describe: `nest ${depth} deep`,
    apply: (text) => `${"[".repeat(depth)}${text}${"]".repeat(depth)}`,
  })),
  fc.integer({ min: MAX_BODY_BYTES - 64, max: MAX_BODY_BYTES * 3 }).map((size): _RawMutation => ({
    describe: `padded to ${size} bytes`,
    apply: (text) => `${text.slice(0, -1)},"pad":"${"x".repeat(Math.max(0, size - text.length))}"}`,
  })),
  fc.constantFrom("", "null", "[]", '"order"', "42", "true", "{}", "\ufeff{}", "{'a':1}").map(
    (text): _RawMutation => ({ describe: `replaced by ${JSON.stringify(text)}`, apply: () => text }),
  ),
  fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes): _RawMutation => ({
    describe: `invalid UTF-8 ${[...bytes]}`,
    apply(text) {
      const encoded = new TextEncoder().encode(text);
      const out = new Uint8Array(encoded.length + bytes.length + 1);
      out.set(encoded);
      out.set([0xc3, ...bytes.map((b) => b | 0x80)], Math.max(1, encoded.length - 2));
      return out;
    },
  })),
);

function _short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...(${text.length})` : text;
}

/** Valid orders of `catalogue`, each with the amounts the fee module computes. */
export function validOrderCase(catalogue: FuzzCatalogue): fc.Arbitrary<ValidCase> {
  return _validBody(catalogue);
}

/** A valid order broken by 1-3 structural mutations, or by one mutation of its JSON text. */
export function mutatedOrderCase(catalogue: FuzzCatalogue): fc.Arbitrary<MutatedCase> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.tuple(
        _validBody(catalogue),
        fc.array(structuralMutation, { minLength: 1, maxLength: 3 }),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(_validBody(catalogue), rawMutation) },
  ).map(([valid, mutation]) => {
    if (!Array.isArray(mutation)) {
      return { kind: "mutated" as const, mutations: [mutation.describe], text: mutation.apply(valid.text) };
    }
    let body = structuredClone(valid.body);
    for (const m of mutation) body = m.apply(body);
    return {
      kind: "mutated" as const,
      mutations: mutation.map((m) => m.describe),
      text: JSON.stringify(body),
    };
  });
}

/** A valid order with hostile text of one class in one of its text fields. */
export function hostileTextCase(catalogue: FuzzCatalogue): fc.Arbitrary<HostileTextCase> {
  const classes = Object.entries(HOSTILE_TEXT).map(([textClass, text]) =>
    text.map((value) => ({ textClass, value }))
  );
  return fc.tuple(_validBody(catalogue), fc.constantFrom(..._TEXT_FIELDS), fc.oneof(...classes))
    .map(([valid, path, { textClass, value }]) => {
      const body = structuredClone(valid.body);
      _at(body, path.slice(0, -1))[path[path.length - 1]] = value;
      return { kind: "hostile" as const, textClass, path: path.join("."), text: JSON.stringify(body) };
    });
}

/** Of ten cases: two valid orders, one with hostile text, seven mutated ones. */
export function fuzzOrderCase(
  catalogue: FuzzCatalogue,
): fc.Arbitrary<ValidCase | HostileTextCase | MutatedCase> {
  return fc.oneof(
    {
      weight: 2,
      arbitrary: validOrderCase(catalogue) as fc.Arbitrary<ValidCase | HostileTextCase | MutatedCase>,
    },
    { weight: 1, arbitrary: hostileTextCase(catalogue) },
    { weight: 7, arbitrary: mutatedOrderCase(catalogue) },
  );
}
