import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { ALLOWED_STATUS_MOVES, ORDER_STATUSES } from "./support/lifecycle.ts";

const STATUSES = ORDER_STATUSES;
type Status = typeof STATUSES[number];

/**
 * The tables' owner writes here: the lifecycle trigger guards every writer, and no API role may write orders
 * at all (order_writes_test.ts).
 */
const OWNER = "postgres";

/** An order brought to `status` along allowed moves (pending is inserted directly, as a seller tool would). */
async function orderIn(db: SqlDatabase, status: Status): Promise<string> {
  const store = await createTestStore(db);
  const { response } = await callCreateOrder(db, createOrderPayload(store));
  const path: Record<Status, Status[]> = {
    pending: [],
    payment_pending: [],
    paid: ["paid"],
    processing: ["paid", "processing"],
    shipped: ["paid", "processing", "shipped"],
    delivered: ["paid", "processing", "shipped", "delivered"],
    cancelled: ["cancelled"],
  };
  if (status === "pending") {
    // a copy of the order, with its items in the same transaction (the database refuses an order without)
    response.orderId = await db.asRole(OWNER, async (s) => {
      const [row] = await s.query<{ id: string }>(
        `insert into public.orders (store_id, order_year, status, payment_method, gateway_method, buyer_email,
           buyer_name, buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount)
         select store_id, order_year, 'pending', payment_method, gateway_method, buyer_email,
           buyer_name, buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount
         from public.orders where id = $1 returning id`,
        [response.orderId],
      );
      await s.query(
        `insert into public.order_items (order_id, position, product_id, product_name, quantity, unit_price, line_total)
         select $1, position, product_id, product_name, quantity, unit_price, line_total
         from public.order_items where order_id = $2`,
        [row.id, response.orderId],
      );
      return row.id;
    });
  }
  for (const next of path[status]) await setStatus(db, response.orderId, next);
  return response.orderId;
}

function setStatus(db: SqlDatabase, orderId: string, status: Status) {
  return db.asRole(
    OWNER,
    (s) => s.query("update public.orders set status = $2 where id = $1", [orderId, status]),
  );
}

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] orders status trigger allows exactly the lifecycle's moves`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      for (const from of STATUSES) {
        for (const to of STATUSES) {
          if (from === to) continue;
          const allowed = ALLOWED_STATUS_MOVES.has(`${from}>${to}`);
          await t.step(`${from} -> ${to}: ${allowed ? "allowed" : "refused"}`, async () => {
            const orderId = await orderIn(db, from);
            if (allowed) {
              await setStatus(db, orderId, to);
            } else {
              await assert.rejects(
                setStatus(db, orderId, to),
                (error: { code?: string }) => error.code === "OCT01",
              );
            }
            const [row] = await db.query<{ status: string }>(
              "select status::text from public.orders where id = $1",
              [
                orderId,
              ],
            );
            assert.equal(row.status, allowed ? to : from);
          });
        }
      }
    },
  });

  Deno.test({
    name: `[${name}] order_status_history records every status an order takes, in order`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const orderId = await orderIn(db, "delivered");
      await assert.rejects(setStatus(db, orderId, "cancelled"));
      const history = await db.query<{ from_status: string | null; to_status: string }>(
        "select from_status::text, to_status::text from public.order_status_history where order_id = $1 order by id",
        [orderId],
      );
      assert.deepEqual(history.map((h) => `${h.from_status ?? "-"}>${h.to_status}`), [
        "->payment_pending",
        "payment_pending>paid",
        "paid>processing",
        "processing>shipped",
        "shipped>delivered",
      ]);
    },
  });

  Deno.test({
    name: `[${name}] orders refuses an order that starts beyond pending or payment_pending`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const orderId = await orderIn(db, "payment_pending");
      await assert.rejects(
        db.query(
          `insert into public.orders (store_id, order_year, status, payment_method, gateway_method, buyer_email,
             buyer_name, buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount)
           select store_id, order_year, 'shipped', payment_method, gateway_method, buyer_email, buyer_name,
             buyer_phone, shipping_address, currency, total_amount, checkout_fee, final_amount
           from public.orders where id = $1`,
          [orderId],
        ),
        (error: { code?: string }) => error.code === "OCT01",
      );
    },
  });
}
