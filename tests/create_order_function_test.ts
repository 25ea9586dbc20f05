import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import {
  callCreateOrder,
  createOrderFailure,
  createOrderPayload,
  NO_ROWS,
  ONE_ORDER_ROWS,
  payloadItem,
  storeRowCounts,
} from "./support/create_order_payload.ts";
import { sharedPostgres, testDatabases } from "./support/databases.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({
      name: `[${name}] ${title}`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn,
    });

  test("create_order() stores the order, its items, two claimed e-mails and its first history row", async () => {
    const store = await createTestStore(db);
    const orderedAt = new Date().toISOString();
    const year = new Date(orderedAt).getUTCFullYear();
    const result = await callCreateOrder(db, createOrderPayload(store, { orderedAt }));
    assert.equal(result.replayed, false);
    assert.deepEqual({ ...result.response, orderId: "-" }, {
      success: true,
      orderId: "-",
      orderNumber: `ORD-${year}-000001`,
      totalAmount: 698,
      checkoutFee: 17.45,
      finalAmount: 715.45,
      status: "payment_pending",
    });
    assert.deepEqual(await storeRowCounts(db, store.storeId), ONE_ORDER_ROWS);
    const [order] = await db.query(
      `select status::text, payment_method, gateway_method, total_amount::text, checkout_fee::text, final_amount::text,
         currency, buyer_phone, order_year, order_sequence, created_at = $2 as at_clock
       from public.orders where id = $1`,
      [result.response.orderId, orderedAt],
    );
    assert.deepEqual(order, {
      status: "payment_pending",
      payment_method: "gateway",
      gateway_method: "card",
      total_amount: "698.00",
      checkout_fee: "17.45",
      final_amount: "715.45",
      currency: "INR",
      buyer_phone: "+919876543210",
      order_year: year,
      order_sequence: 1,
      at_clock: true,
    });
    assert.deepEqual(
      result.emails.map((e) => [e.kind, e.to, e.replyTo]),
      [["buyer", "asha@example.com", store.ownerEmail], [
        "seller",
        store.ownerEmail,
        "asha@example.com",
      ]],
    );
    assert.equal(result.emails[0].payload.orderNumber, `ORD-${year}-000001`);
    assert.deepEqual(result.emails[0].payload.items, [{
      position: 0,
      productId: store.products[0].id,
      variantId: null,
      productName: "Assam Tea 250 g",
      variantName: null,
      quantity: 2,
      unitPriceMinor: 34_900,
      lineTotalMinor: 69_800,
    }] as unknown);
  });

  test("create_order() writes each row of an order once: nothing of the order is updated, only its store's counter", async () => {
    const store = await createTestStore(db);
    await callCreateOrder(db, createOrderPayload(store)); // the store's counter row exists from here on
    // the row counts the backend keeps until it reports them, read before and after inside one transaction
    const written = await db.asRole("service_role", async (session) => {
      const counts = () =>
        session.query<{ table: string; inserted: number; updated: number }>(
          `select relname::text as table, n_tup_ins::int as inserted, n_tup_upd::int as updated
           from pg_stat_xact_user_tables where schemaname = 'public' order by 1`,
        );
      const before = await counts();
      await session.query("select public.create_order($1::text::jsonb)", [
        JSON.stringify(createOrderPayload(store, {
          items: [
            payloadItem(store.products[0].id, 34_900),
            payloadItem(store.products[2].id, 29_900, { variantId: store.variants[1].id }),
          ],
        })),
      ]);
      return (await counts()).map((row) => {
        const was = before.find((b) => b.table === row.table) ?? { inserted: 0, updated: 0 };
        return {
          table: row.table,
          inserted: row.inserted - was.inserted,
          updated: row.updated - was.updated,
        };
      }).filter((row) => row.inserted + row.updated > 0);
    });
    assert.deepEqual(written, [
      { table: "email_outbox", inserted: 2, updated: 0 },
      { table: "order_counters", inserted: 0, updated: 1 },
      { table: "order_items", inserted: 2, updated: 0 },
      { table: "order_status_history", inserted: 1, updated: 0 },
      { table: "orders", inserted: 1, updated: 0 },
    ]);
  });

  test("create_order() keeps no copy of the order in its outbox rows: the e-mails' content comes back to the caller", async () => {
    const store = await createTestStore(db);
    const result = await callCreateOrder(db, createOrderPayload(store));
    const rows = await db.query<{ kind: string; payload: unknown }>(
      "select kind, payload from public.email_outbox where order_id = $1 order by kind",
      [result.response.orderId],
    );
    assert.deepEqual(rows, [{ kind: "buyer", payload: null }, { kind: "seller", payload: null }]);
    assert.deepEqual(result.emails.map((e) => [e.kind, e.payload.orderNumber, e.payload.store.name]), [
      ["buyer", result.response.orderNumber, "Test Store"],
      ["seller", result.response.orderNumber, "Test Store"],
    ]);
  });

  test("create_order() runs as its owner with an empty search_path, callable by service_role alone", async () => {
    const [fn] = await db.query<{ definer: boolean; config: string[]; callers: string[] }>(
      `select p.prosecdef as definer, p.proconfig as config,
         array(select r from unnest(array['public', 'anon', 'authenticated', 'service_role']) r
               where has_function_privilege(r, p.oid, 'execute')) as callers
       from pg_proc p where p.oid = 'public.create_order(jsonb)'::regprocedure`,
    );
    assert.deepEqual(fn, { definer: true, config: ['search_path=""'], callers: ["service_role"] });
  });

  test("create_order() numbers a store's orders consecutively from 1, separately per store", async () => {
    const [a, b] = [await createTestStore(db), await createTestStore(db)];
    const numbers = [];
    for (const store of [a, a, b, a, b]) {
      numbers.push(
        (await callCreateOrder(db, createOrderPayload(store))).response
          .orderNumber.slice(-6),
      );
    }
    assert.deepEqual(numbers, [
      "000001",
      "000002",
      "000001",
      "000003",
      "000002",
    ]);
  });

  test("create_order() counts each calendar year from 1, whatever the store's earlier years reached", async () => {
    const store = await createTestStore(db);
    const year = new Date().getUTCFullYear();
    await db.query("insert into public.order_counters (store_id, year, last_sequence) values ($1, $2, 41)", [
      store.storeId,
      year - 1,
    ]);
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    assert.equal(response.orderNumber, `ORD-${year}-000001`);
  });

  test("order_year_of() is the calendar year in UTC", async (t) => {
    for (
      const [at, year] of [
        ["2025-12-31T23:59:59Z", 2025],
        ["2026-01-01T00:30:00+05:30", 2025], // still 2025 in UTC
        ["2026-01-01T00:00:00Z", 2026],
      ] as const
    ) {
      await t.step(at, async () => {
        const [row] = await db.query<{ year: number }>("select public.order_year_of($1) as year", [at]);
        assert.equal(row.year, year);
      });
    }
  });

  test("create_order() prices a variant at its own price, or its product's when it has none", async () => {
    const store = await createTestStore(db);
    const result = await callCreateOrder(
      db,
      createOrderPayload(store, {
        items: [
          payloadItem(store.products[2].id, 25_000, { variantId: store.variants[0].id }),
          payloadItem(store.products[2].id, 29_900, { variantId: store.variants[1].id, quantity: 3 }),
        ],
      }),
    );
    assert.equal(result.response.totalAmount, 1147);
    assert.deepEqual(result.emails[0].payload.items.map((i) => i.variantName), [
      "Small 200 ml",
      "Large 400 ml",
    ]);
  });

  test("create_order() refuses each missing catalogue fact with its code and writes nothing", async (t) => {
    const store = await createTestStore(db);
    const other = await createTestStore(db);
    const inactive = await createTestStore(db, { active: false });
    const line = (productId: string, variantId: string | null = null, unitPriceMinor = 34_900) => ({
      items: [payloadItem(productId, unitPriceMinor, { variantId })],
    });
    const cases = [
      {
        title: "unknown store",
        code: "OCS04",
        payload: createOrderPayload({ ...store, storeId: crypto.randomUUID() }),
      },
      {
        title: "inactive store",
        code: "OCS04",
        payload: createOrderPayload(inactive),
      },
      {
        title: "unknown product",
        code: "OCP04",
        payload: createOrderPayload(store, line(crypto.randomUUID())),
      },
      {
        title: "inactive product",
        code: "OCP04",
        payload: createOrderPayload(
          store,
          line(store.inactiveProductId, null, 1000),
        ),
      },
      {
        title: "product of another store",
        code: "OCP04",
        payload: createOrderPayload(store, line(other.products[0].id)),
      },
      {
        title: "unknown variant",
        code: "OCV04",
        payload: createOrderPayload(
          store,
          line(store.products[2].id, crypto.randomUUID(), 25_000),
        ),
      },
      {
        title: "inactive variant",
        code: "OCV04",
        payload: createOrderPayload(
          store,
          line(store.products[2].id, store.inactiveVariantId, 100),
        ),
      },
      {
        title: "variant of another product",
        code: "OCV04",
        payload: createOrderPayload(
          store,
          line(store.products[0].id, store.variants[1].id, 29_900),
        ),
      },
    ];
    for (const c of cases) {
      await t.step(c.title, async () => {
        assert.equal((await createOrderFailure(db, c.payload)).code, c.code);
      });
    }
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("create_order() refuses prices that differ from the catalogue, listing every current price", async () => {
    const store = await createTestStore(db);
    const failure = await createOrderFailure(
      db,
      createOrderPayload(store, {
        items: [
          payloadItem(store.products[0].id, 100),
          payloadItem(store.products[1].id, 19_950),
          payloadItem(store.products[2].id, 25_000, { variantId: store.variants[1].id }),
        ],
      }),
    );
    assert.equal(failure.code, "OC400");
    assert.deepEqual(JSON.parse(failure.detail!), [
      {
        index: 0,
        productId: store.products[0].id,
        variantId: null,
        price: 349,
        submittedPrice: 1,
      },
      {
        index: 2,
        productId: store.products[2].id,
        variantId: store.variants[1].id,
        price: 299,
        submittedPrice: 250,
      },
    ]);
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("create_order() reports a missing product before a price mismatch", async () => {
    const store = await createTestStore(db);
    const failure = await createOrderFailure(
      db,
      createOrderPayload(store, {
        items: [
          payloadItem(store.products[0].id, 1),
          payloadItem(crypto.randomUUID(), 1),
        ],
      }),
    );
    assert.equal(failure.code, "OCP04");
  });

  test("create_order() refuses totals that do not match the catalogue or final = total + fee", async (t) => {
    const store = await createTestStore(db);
    const good = createOrderPayload(store);
    for (
      const [title, overrides] of [
        ["total too low", {
          totalMinor: good.totalMinor - 1,
          finalMinor: good.finalMinor - 1,
        }],
        ["final not total + fee", { finalMinor: good.finalMinor + 1 }],
      ] as const
    ) {
      await t.step(title, async () => {
        assert.equal(
          (await createOrderFailure(db, { ...good, ...overrides })).code,
          "OCA00",
        );
      });
    }
    assert.deepEqual(await storeRowCounts(db, store.storeId), NO_ROWS);
  });

  test("create_order() replays an idempotency key with the same body and refuses another body", async () => {
    const store = await createTestStore(db);
    const idempotency = { key: "checkout-42", requestHash: "a".repeat(64) };
    const first = await callCreateOrder(
      db,
      createOrderPayload(store, { idempotency }),
    );
    const again = await callCreateOrder(
      db,
      createOrderPayload(store, { idempotency }),
    );
    assert.equal(again.replayed, true);
    assert.deepEqual(again.response, first.response);
    assert.deepEqual(again.emails, []);
    const other = await createOrderFailure(
      db,
      createOrderPayload(store, {
        idempotency: { ...idempotency, requestHash: "b".repeat(64) },
      }),
    );
    assert.equal(other.code, "OCI22");
    assert.deepEqual(await storeRowCounts(db, store.storeId), {
      ...ONE_ORDER_ROWS,
      idempotency: 1,
    });
  });

  test("create_order() scopes idempotency keys to the store", async () => {
    const [a, b] = [await createTestStore(db), await createTestStore(db)];
    const idempotency = { key: "same-key", requestHash: "c".repeat(64) };
    const first = await callCreateOrder(
      db,
      createOrderPayload(a, { idempotency }),
    );
    const second = await callCreateOrder(
      db,
      createOrderPayload(b, { idempotency }),
    );
    assert.equal(second.replayed, false);
    assert.notEqual(second.response.orderId, first.response.orderId);
  });

  test("orders refuses a row whose final amount is not total plus fee, whoever writes it", async () => {
    const store = await createTestStore(db);
    await assert.rejects(
      db.query(
        `insert into public.orders (store_id, order_year, payment_method, gateway_method, buyer_email, buyer_name,
           buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount)
         values ($1, 2026, 'gateway', 'card', 'a@b.co', 'A', '+919876543210', '{}', 'INR', 100, 2.5, 103)`,
        [store.storeId],
      ),
      (error: { code?: string }) => error.code === "23514",
    );
  });
}

const postgres = await sharedPostgres();
Deno.test({
  name:
    "[postgres] create_order() answers IDEMPOTENCY_KEY_IN_USE while the key's first request is in progress",
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const store = await createTestStore(postgres!);
    const idempotency = { key: "in-flight", requestHash: "d".repeat(64) };
    // another session holds the key's lock, as the first request's transaction does until it commits
    await postgres!.asRole("service_role", async (first) => {
      await first.query(
        "select pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))",
        [
          store.storeId,
          idempotency.key,
        ],
      );
      const failure = await createOrderFailure(
        postgres!,
        createOrderPayload(store, { idempotency }),
      );
      assert.equal(failure.code, "OCI09");
    });
    const after = await callCreateOrder(
      postgres!,
      createOrderPayload(store, { idempotency }),
    );
    assert.equal(after.replayed, false);
  },
});
