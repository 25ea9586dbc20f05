/**
 * The database defends itself against the service role (contract, end of "Database"): whoever holds the
 * service key can call create_order through /rest/v1/rpc, and still cannot store a wrong fee, an order
 * without items, an order from another time, a malformed buyer e-mail or another currency than the store's;
 * as service_role it writes no order, item or history row at all (order_writes_test.ts has every table). The
 * tables' own rules hold for their owner too, whose plain SQL bypasses the grants: no rewrite of an order's
 * facts or items, no order that does not add up.
 */
import assert from "node:assert/strict";
import type { SqlDatabase, SqlSession } from "../local/sql_database.ts";
import { createTestStore, type TestStore } from "./support/catalogue.ts";
import {
  callCreateOrder,
  createOrderPayload,
  ONE_ORDER_ROWS,
  storeRowCounts,
} from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { startTestStack } from "./support/local_stack.ts";

const NO_LIMITS = { RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_EMAIL: "0" };

/** The tables' owner: the one role that writes them outside the functions. */
const OWNER = "postgres";

/** The SQLSTATE `work` run as `role` fails with, or "ok". */
async function _attempt(
  db: SqlDatabase,
  role: string,
  work: (s: SqlSession) => Promise<unknown>,
): Promise<string> {
  try {
    await db.asRole(role, work);
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** An existing order's columns, to write a copy of it directly. */
const ORDER_COLUMNS = `store_id, order_year, payment_method, gateway_method, payment_proof_url, buyer_email,
  buyer_name, buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount`;

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("POST /rest/v1/rpc/create_order with the service key refuses every amount, item, time and e-mail the function would never send", async (t) => {
    const store = await createTestStore(db);
    const stack = await startTestStack({ db, env: NO_LIMITS });
    const good = createOrderPayload(store); // gateway/card, 698.00 + 17.45
    const cases: [string, Record<string, unknown>, string][] = [
      ["a card order with fee 0", { feeMinor: 0, finalMinor: good.totalMinor }, "OCA01"],
      ["a fee of 1,000,000.00", {
        feeMinor: 100_000_000,
        finalMinor: good.totalMinor + 100_000_000,
      }, "OCA01"],
      ["a negative fee", { feeMinor: -1, finalMinor: good.totalMinor - 1 }, "OCA01"],
      ["a upi_direct order with a fee", {
        paymentMethod: "upi_direct",
        gatewayMethod: null,
        paymentProofUrl: "https://proofs.example.com/1.png",
      }, "OCA01"],
      ["a gateway order without a gateway method", { gatewayMethod: null }, "OCA01"],
      ["no items (a 0.00 order with two e-mails)", {
        items: [],
        totalMinor: 0,
        feeMinor: 0,
        finalMinor: 0,
      }, "OCA02"],
      ["an order time of 2000-06-01 (ORD-2000-000001)", { orderedAt: "2000-06-01T00:00:00Z" }, "OCD00"],
      ["an order time 6 minutes ahead", {
        orderedAt: new Date(Date.now() + 6 * 60_000).toISOString(),
      }, "OCD00"],
      ["a buyer e-mail with CR/LF", {
        buyer: { ...good.buyer, email: "asha@example.com\r\nBcc: victim@example.com" },
      }, "OCB00"],
      ["a buyer e-mail with an IP literal", { buyer: { ...good.buyer, email: "asha@[127.0.0.1]" } }, "OCB00"],
    ];
    try {
      for (const [title, overrides, code] of cases) {
        await t.step(`${title}: 400 ${code}`, async () => {
          const res = await fetch(`${stack.url}/rest/v1/rpc/create_order`, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              apikey: stack.serviceKey,
              Authorization: `Bearer ${stack.serviceKey}`,
            },
            body: JSON.stringify({ payload: { ...good, ...overrides } }),
          });
          const body = await res.json();
          assert.equal(res.status, 400, JSON.stringify(body));
          assert.equal(body.code, code);
        });
      }
      assert.equal((await storeRowCounts(db, store.storeId)).orders, 0);
      // the same payload with the method's fee is stored: the refusals above were about their one fact
      assert.equal((await callCreateOrder(db, good)).response.checkoutFee, 17.45);
    } finally {
      await stack.close();
    }
  });

  test("orders, order_items and order_status_history refuse the service role's deletes, rewrites and forgeries (42501), and their owner's rewrites and forgeries", async (t) => {
    const store = await createTestStore(db);
    const other = await createTestStore(db, { currency: "USD" });
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    const orderId = response.orderId;
    const copy = (set: string, where = "") =>
      `insert into public.orders (${ORDER_COLUMNS}) select ${set} from public.orders where id = $1 ${where}`;
    // [what, the statements, what the owner gets: null where the owner may (it administers the database)]
    const cases: [string, (s: SqlSession) => Promise<unknown>, string | null][] = [
      [
        "delete an order (to re-insert it with the same id and number)",
        (s) => s.query("delete from public.orders where id = $1", [orderId]),
        null,
      ],
      ["truncate orders", (s) => s.query("truncate public.orders cascade"), null],
      [
        "delete an order's item",
        (s) => s.query("delete from public.order_items where order_id = $1", [orderId]),
        "OCM00",
      ],
      [
        "update an order's item",
        (s) => s.query("update public.order_items set quantity = 1 where order_id = $1", [orderId]),
        "OCM00",
      ],
      [
        "update a history row",
        (s) =>
          s.query("update public.order_status_history set to_status = 'paid' where order_id = $1", [orderId]),
        null,
      ],
      [
        "delete a history row",
        (s) => s.query("delete from public.order_status_history where order_id = $1", [orderId]),
        null,
      ],
      ["change an order's amounts", (s) =>
        s.query(
          "update public.orders set total_amount = 1, checkout_fee = 0.03, final_amount = 1.03 where id = $1",
          [orderId],
        ), "OCM00"],
      [
        "move an order to another store",
        (s) =>
          s.query("update public.orders set store_id = $2, currency = 'USD' where id = $1", [
            orderId,
            other.storeId,
          ]),
        "OCM00",
      ],
      ["renumber an order", (s) =>
        s.query(
          "update public.orders set order_number = public.format_order_number(order_year, 7), order_sequence = 7 where id = $1",
          [orderId],
        ), "OCM00"],
      [
        "change an order's currency",
        (s) => s.query("update public.orders set currency = 'USD' where id = $1", [orderId]),
        "OCM00",
      ],
      [
        "change an order's payment method (the fee depends on it)",
        (s) => s.query("update public.orders set gateway_method = 'upi' where id = $1", [orderId]),
        "OCM00",
      ],
      ["add an item to an order created earlier", (s) =>
        s.query(
          `insert into public.order_items (order_id, position, product_id, product_name, quantity, unit_price, line_total)
           values ($1, 9, $2, 'Free gift', 1, 0, 0)`,
          [orderId, store.products[0].id],
        ), "OCM00"],
      [
        "insert an order in another currency than its store's",
        (s) =>
          s.query(
            copy(
              "store_id, order_year, payment_method, gateway_method, payment_proof_url, buyer_email, buyer_name, buyer_phone, shipping_address, 'USD', total_amount, checkout_fee, final_amount",
            ),
            [orderId],
          ),
        "OCC00",
      ],
      [
        "insert an order whose fee is not its method's",
        (s) =>
          s.query(
            copy(
              "store_id, order_year, payment_method, gateway_method, payment_proof_url, buyer_email, buyer_name, buyer_phone, shipping_address, currency, total_amount, 0, total_amount",
            ),
            [orderId],
          ),
        "23514",
      ],
      ["insert an order without items", (s) => s.query(copy(ORDER_COLUMNS), [orderId]), "OCA02"],
      ["insert an order whose total is not its items' sum", async (s) => {
        const [row] = await s.query<{ id: string }>(`${copy(ORDER_COLUMNS)} returning id`, [orderId]);
        await s.query(
          `insert into public.order_items (order_id, position, product_id, product_name, quantity, unit_price, line_total)
           values ($1, 0, $2, 'Assam Tea 250 g', 1, 349, 349)`,
          [row.id, store.products[0].id],
        );
      }, "OCA00"],
      ["insert an order whose number is not its year and sequence", (s) =>
        s.query(
          `insert into public.orders (${ORDER_COLUMNS}, order_number, order_sequence)
           select ${ORDER_COLUMNS}, 'ORD-2026-000001', 2 from public.orders where id = $1`,
          [orderId],
        ), "23514"],
      [
        "insert an order with a malformed buyer e-mail",
        (s) =>
          s.query(
            copy(
              "store_id, order_year, payment_method, gateway_method, payment_proof_url, 'a@b@c', buyer_name, buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount",
            ),
            [orderId],
          ),
        "23514",
      ],
    ];
    for (const [title, work, ownerCode] of cases) {
      await t.step(`${title}: service_role 42501${ownerCode ? `, owner ${ownerCode}` : ""}`, async () => {
        assert.equal(await _attempt(db, "service_role", work), "42501");
        if (ownerCode) assert.equal(await _attempt(db, OWNER, work), ownerCode);
      });
    }
    // the order is as it was created, with its one history row
    assert.deepEqual(await storeRowCounts(db, store.storeId), {
      orders: 1,
      items: 1,
      emails: 2,
      history: 1,
      counters: 1,
      idempotency: 0,
    });
    const [order] = await db.query(
      "select order_number, total_amount::text, checkout_fee::text, currency from public.orders where id = $1",
      [orderId],
    );
    assert.deepEqual(order, {
      order_number: response.orderNumber,
      total_amount: "698.00",
      checkout_fee: "17.45",
      currency: "INR",
    });
  });

  test("an order's time, year and items never change after creation, even for the tables' owner", async (t) => {
    const store = await createTestStore(db);
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    const orderId = response.orderId;
    const cases: [string, (s: SqlSession) => Promise<unknown>, string][] = [
      [
        "move when it was made (created_at) to another day",
        (s) =>
          s.query("update public.orders set created_at = created_at - interval '1 day' where id = $1", [
            orderId,
          ]),
        "OCM00",
      ],
      [
        "move its year (the number counts in it)",
        (s) => s.query("update public.orders set order_year = order_year - 1 where id = $1", [orderId]),
        "OCM00",
      ],
      [
        "insert an order numbered in another year than it was made",
        (s) =>
          s.query(
            `insert into public.orders (${ORDER_COLUMNS})
             select ${
              ORDER_COLUMNS.replace("order_year", "order_year - 1")
            } from public.orders where id = $1`,
            [orderId],
          ),
        "23514",
      ],
      [
        "delete an item of an order that stands",
        (s) => s.query("delete from public.order_items where order_id = $1", [orderId]),
        "OCM00",
      ],
      [
        "change when an item was written",
        (s) => s.query("update public.order_items set created_at = now() where order_id = $1", [orderId]),
        "OCM00",
      ],
    ];
    for (const [title, work, code] of cases) {
      await t.step(`${title}: ${code}`, async () => assert.equal(await _attempt(db, OWNER, work), code));
    }
    assert.deepEqual(await storeRowCounts(db, store.storeId), ONE_ORDER_ROWS);
    await t.step("deleting the order itself (its owner only) still takes its items along", async () => {
      assert.equal(
        await _attempt(db, OWNER, (s) => s.query("delete from public.orders where id = $1", [orderId])),
        "ok",
      );
      const [left] = await db.query<{ items: number }>(
        "select count(*)::int as items from public.order_items where order_id = $1",
        [orderId],
      );
      assert.equal(left.items, 0);
    });
  });

  test("orders allows its owner what may change: the status along the lifecycle, and the number once, from null", async () => {
    const store: TestStore = await createTestStore(db);
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    assert.equal(
      await _attempt(
        db,
        OWNER,
        (s) => s.query("update public.orders set status = 'paid' where id = $1", [response.orderId]),
      ),
      "ok",
    );
    // create_order writes the order first and its number last: null -> a number is allowed once
    const code = await _attempt(db, OWNER, async (s) => {
      const [row] = await s.query<{ id: string }>(
        `insert into public.orders (${ORDER_COLUMNS}) select ${ORDER_COLUMNS} from public.orders where id = $1
         returning id`,
        [response.orderId],
      );
      await s.query(
        `insert into public.order_items (order_id, position, product_id, product_name, quantity, unit_price, line_total)
         select $1, position, product_id, product_name, quantity, unit_price, line_total
         from public.order_items where order_id = $2`,
        [row.id, response.orderId],
      );
      await s.query(
        "update public.orders set order_number = public.format_order_number(order_year, 999), order_sequence = 999 where id = $1",
        [row.id],
      );
    });
    assert.equal(code, "ok");
  });
}
