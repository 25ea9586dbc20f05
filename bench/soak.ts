/**
 * `deno task soak [--minutes 10] [--concurrency 8]`: mixed valid and invalid load on the local stack over
 * a throwaway PostgreSQL database (TEST_DATABASE_URL's server, default 127.0.0.1:5432). Reports RSS after
 * warm-up and at the end (fails above 20 % growth), the responses by status, and checks that the orders
 * stored equal the 200 responses and that twice as many e-mails were recorded sent. Not part of CI.
 */
import { resetDatabase } from "../local/migrate.ts";
import { openPostgres } from "../local/open_database.ts";
import { createTestStore, type TestStore } from "../tests/support/catalogue.ts";
import { startTestStack } from "../tests/support/local_stack.ts";
import { orderBody } from "../tests/support/order_request.ts";
import type { Mailer } from "../supabase/functions/_shared/email/mailer.ts";

const SERVER_URL = Deno.env.get("TEST_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";

function _flag(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  const raw = at >= 0 ? Deno.args[at + 1] : Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const value = raw === undefined ? fallback : Number(raw);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number: got ${raw}`);
  return value;
}

const minutes = _flag("minutes", 10);
const concurrency = _flag("concurrency", 8);
const durationMs = minutes * 60_000;
const warmUpMs = Math.min(30_000, durationMs / 10);

/** One kind of request of the mix, with its weight and the status it must get. */
type _Kind = {
  name: string;
  weight: number;
  expect: number;
  send: (stack: _Stack, store: TestStore) => Promise<Response>;
};
type _Stack = Awaited<ReturnType<typeof startTestStack>>;

const KINDS: _Kind[] = [
  {
    name: "valid",
    weight: 60,
    expect: 200,
    send: (s, store) => s.post(orderBody(store, { buyerEmail: _email() })),
  },
  {
    name: "valid gateway with a variant",
    weight: 10,
    expect: 200,
    send: (s, store) =>
      s.post(orderBody(store, {
        buyerEmail: _email(),
        paymentMethod: "gateway",
        paymentProofUrl: undefined,
        items: [{
          productId: store.products[2].id,
          variantId: store.variants[1].id,
          quantity: 3,
          price: 299,
        }],
      })),
  },
  { name: "invalid JSON", weight: 4, expect: 400, send: (s) => s.post('{"storeId":') },
  {
    name: "schema",
    weight: 8,
    expect: 400,
    send: (s, store) => s.post(orderBody(store, { buyerPhone: "12" })),
  },
  {
    name: "price mismatch",
    weight: 6,
    expect: 400,
    send: (s, store) =>
      s.post(orderBody(store, { items: [{ productId: store.products[0].id, quantity: 1, price: 1 }] })),
  },
  {
    name: "unknown store",
    weight: 5,
    expect: 404,
    send: (s, store) => s.post(orderBody(store, { storeId: crypto.randomUUID() })),
  },
  {
    name: "no key",
    weight: 5,
    expect: 401,
    send: (s, store) => s.post(orderBody(store), { Authorization: "Bearer nope" }),
  },
  {
    name: "too large",
    weight: 2,
    expect: 413,
    send: (s, store) => s.post(orderBody(store, { pad: "x".repeat(70_000) })),
  },
];
const TOTAL_WEIGHT = KINDS.reduce((sum, k) => sum + k.weight, 0);

function _email(): string {
  return `soak-${crypto.randomUUID().slice(0, 12)}@example.com`;
}

function _pick(): _Kind {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const kind of KINDS) if ((r -= kind.weight) < 0) return kind;
  return KINDS[0];
}

function _mb(bytes: number): number {
  return Math.round(bytes / 1024 / 102.4) / 10;
}

const name = `create_order_soak_${Date.now()}`;
const admin = openPostgres(SERVER_URL, 1);
await admin.exec(`create database ${name}`);
const url = new URL(SERVER_URL);
url.pathname = `/${name}`;
const db = openPostgres(url.href, 10);
const started = performance.now();
try {
  await resetDatabase(db);
  const stores = await Promise.all([0, 1, 2].map(() => createTestStore(db)));
  // A mailer that only counts: one that kept every message would itself grow the heap the soak measures.
  let mailed = 0;
  const countingMailer: Mailer = {
    send: () => Promise.resolve({ ok: true, providerId: `soak-${++mailed}` }),
  };
  const stack = await startTestStack({
    db,
    env: { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" },
    mailer: () => Promise.resolve(countingMailer),
  });
  const statuses = new Map<number, number>();
  const unexpected = new Map<string, number>();
  let networkErrors = 0;
  let requests = 0;
  let rssStart = 0;
  let heapStart = 0;
  const deadline = Date.now() + durationMs;
  const warmUpEnd = Date.now() + warmUpMs;
  let lastReport = Date.now();

  const worker = async () => {
    while (Date.now() < deadline) {
      const kind = _pick();
      const store = stores[requests % stores.length];
      requests++;
      try {
        const res = await kind.send(stack, store);
        await res.body?.cancel();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== kind.expect) {
          const key = `${kind.name}: ${res.status}`;
          unexpected.set(key, (unexpected.get(key) ?? 0) + 1);
        }
      } catch {
        networkErrors++;
      }
      if (!rssStart && Date.now() >= warmUpEnd) ({ rss: rssStart, heapUsed: heapStart } = Deno.memoryUsage());
      if (Date.now() - lastReport >= 30_000) {
        lastReport = Date.now();
        console.log(
          `soak: ${Math.round((performance.now() - started) / 1000)} s, ${requests} requests, rss ${
            _mb(Deno.memoryUsage().rss)
          } MB`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await stack.settled();
  const { rss: rssEnd, heapUsed: heapEnd } = Deno.memoryUsage();
  await stack.close();

  const ok = statuses.get(200) ?? 0;
  const storeIds = stores.map((s) => s.storeId);
  const [{ orders, sent }] = await db.query<{ orders: number; sent: number }>(
    `select (select count(*)::int from public.orders where store_id = any($1::uuid[])) as orders,
       (select count(*)::int from public.email_outbox e join public.orders o on o.id = e.order_id
        where o.store_id = any($1::uuid[]) and e.status = 'sent') as sent`,
    [storeIds],
  );
  const serverErrors = [...statuses].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
  const growth = rssStart ? (rssEnd - rssStart) / rssStart : 0;
  const summary = {
    minutes,
    concurrency,
    requests,
    perSecond: Math.round(requests / ((performance.now() - started) / 1000)),
    statuses: Object.fromEntries([...statuses].sort()),
    unexpected: Object.fromEntries(unexpected),
    serverErrors,
    networkErrors,
    orders200: ok,
    ordersStored: orders,
    emailsRecorded: mailed,
    emailsSentInOutbox: sent,
    rssStartMb: _mb(rssStart),
    rssEndMb: _mb(rssEnd),
    rssGrowthPercent: Math.round(growth * 1000) / 10,
    heapUsedStartMb: _mb(heapStart),
    heapUsedEndMb: _mb(heapEnd),
  };
  console.log(JSON.stringify(summary, null, 2));
  const failures = [
    orders !== ok && `orders stored ${orders} != 200 responses ${ok}`,
    mailed !== 2 * ok && `e-mails recorded ${mailed} != 2 x ${ok}`,
    sent !== 2 * ok && `outbox rows sent ${sent} != 2 x ${ok}`,
    serverErrors + networkErrors > 0 && `${serverErrors} server errors, ${networkErrors} network errors`,
    unexpected.size > 0 && `unexpected statuses ${JSON.stringify(Object.fromEntries(unexpected))}`,
    growth > 0.2 && `RSS grew ${summary.rssGrowthPercent} % (> 20 %)`,
  ].filter(Boolean);
  console.log(failures.length === 0 ? "soak: PASS" : `soak: FAIL\n  ${failures.join("\n  ")}`);
  if (failures.length > 0) Deno.exitCode = 1;
} finally {
  await db.close();
  await admin.exec(`drop database if exists ${name}`).catch(() => {});
  await admin.close();
}
