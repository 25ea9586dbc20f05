/**
 * The order year is the calendar year of the order's creation in its store's time zone (contract, "Success:
 * 200"): an order placed at 00:30 IST on 1 January is the new year's. The database's clock cannot be set and
 * create_order refuses an order time more than 5 minutes from it, so the instants around New Year are tested
 * on the year function and on the orders table's check (a row written at that instant); create_order is
 * tested to number in its store's zone through that function, whatever today's date.
 */
import assert from "node:assert/strict";
import type { SqlDatabase, SqlSession } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { pgliteBefore, testDatabases } from "./support/databases.ts";

/** [instant, zone, the year there, UTC's year] */
const NEW_YEAR_CASES: [string, string, number, number][] = [
  ["2026-12-31T18:29:59Z", "Asia/Kolkata", 2026, 2026], // 23:59:59 IST
  ["2026-12-31T18:30:00Z", "Asia/Kolkata", 2027, 2026], // 00:00:00 IST on 1 January
  ["2026-12-31T19:00:00Z", "Asia/Kolkata", 2027, 2026], // 00:30 IST: the contract's example
  ["2027-01-01T04:59:59Z", "America/New_York", 2026, 2027], // 23:59:59 EST, 31 December
  ["2027-01-01T05:00:00Z", "America/New_York", 2027, 2027],
  ["2026-12-31T10:59:59Z", "Pacific/Auckland", 2026, 2026], // 23:59:59 NZDT
  ["2026-12-31T11:00:00Z", "Pacific/Auckland", 2027, 2026],
  ["2026-12-31T23:59:59Z", "UTC", 2026, 2026],
];

/**
 * Writes one order row of `store` (and its item) made at `createdAt`, numbered in `year`, claiming
 * `timeZone`, as the tables' owner.
 */
async function insertOrderRow(
  s: SqlSession,
  store: { storeId: string; productId: string },
  createdAt: string,
  year: number,
  timeZone: string | null = "UTC",
): Promise<string> {
  const id = crypto.randomUUID();
  const sequence = 1 + Math.floor(Math.random() * 900_000);
  // null: a database from before orders had a zone
  const zone = timeZone === null ? { column: "", value: "" } : { column: ", time_zone", value: ", $6" };
  await s.query(
    `insert into public.orders (
       id, store_id, order_number, order_year, order_sequence, payment_method, payment_proof_url,
       buyer_email, buyer_name, buyer_phone, shipping_address, currency, total_amount, checkout_fee,
       final_amount, created_at, updated_at${zone.column}
     ) values (
       $1, $2, public.format_order_number($3, $4), $3, $4, 'upi_direct', 'https://proof.example/1',
       'asha@example.com', 'Asha Rao', '+919876543210', '{}'::jsonb, 'INR', 349, 0, 349, $5, $5${zone.value}
     )`,
    [id, store.storeId, year, sequence, createdAt, ...(timeZone === null ? [] : [timeZone])],
  );
  await s.query(
    `insert into public.order_items (order_id, position, product_id, product_name, quantity, unit_price, line_total)
     values ($1, 0, $2, 'Assam Tea 250 g', 1, 349, 349)`,
    [id, store.productId],
  );
  return id;
}

/** The SQLSTATE writing such a row fails with, or "ok"; rolled back either way. */
async function attemptOrderRow(
  db: SqlDatabase,
  store: { storeId: string; productId: string },
  createdAt: string,
  year: number,
): Promise<string> {
  const rolledBack = new Error("rolled back");
  try {
    await db.asRole("postgres", async (s) => {
      await insertOrderRow(s, store, createdAt, year);
      throw rolledBack;
    });
  } catch (error) {
    return error === rolledBack ? "ok" : String((error as { code?: string }).code);
  }
  throw new Error("unreachable");
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("order_year_of(at, zone) is the calendar year of the instant in the zone, at 31 Dec 18:29:59 and 18:30:00 UTC in IST and around New Year elsewhere", async (t) => {
    for (const [at, zone, year] of NEW_YEAR_CASES) {
      await t.step(`${at} in ${zone}: ${year}`, async () => {
        const [row] = await db.query<{ year: number }>("select public.order_year_of($1, $2) as year", [
          at,
          zone,
        ]);
        assert.equal(row.year, year);
      });
    }
  });

  test("orders takes an order's year in its store's zone and refuses UTC's where they differ, at 31 Dec 18:29:59 and 18:30:00 UTC in IST and around New Year elsewhere", async (t) => {
    for (const [at, zone, year, utcYear] of NEW_YEAR_CASES) {
      const store = await createTestStore(db);
      await db.query("update public.stores set time_zone = $2 where id = $1", [store.storeId, zone]);
      const row = { storeId: store.storeId, productId: store.products[0].id };
      await t.step(
        `${at} in ${zone}: ${year} accepted${year === utcYear ? "" : `, ${utcYear} (UTC's) refused`}`,
        async () => {
          assert.equal(await attemptOrderRow(db, row, at, year), "ok");
          if (year !== utcYear) assert.equal(await attemptOrderRow(db, row, at, utcYear), "23514");
        },
      );
    }
  });

  test("create_order() numbers an order in the year of its store's zone and records that zone", async (t) => {
    for (const zone of ["Asia/Kolkata", "America/New_York", "Pacific/Auckland"]) {
      await t.step(zone, async () => {
        const store = await createTestStore(db);
        await db.query("update public.stores set time_zone = $2 where id = $1", [store.storeId, zone]);
        const { response } = await callCreateOrder(db, createOrderPayload(store));
        const [row] = await db.query<{ time_zone: string; year_matches: boolean; number_year: string }>(
          `select time_zone, order_year = public.order_year_of(created_at, $2) as year_matches,
             split_part(order_number, '-', 2) as number_year
           from public.orders where id = $1`,
          [response.orderId, zone],
        );
        assert.deepEqual(row, {
          time_zone: zone,
          year_matches: true,
          number_year: response.orderNumber.split("-")[1],
        });
      });
    }
  });

  test("an order's zone is its store's whatever the insert says, and never changes (OCM00)", async () => {
    const store = await createTestStore(db);
    const { response } = await callCreateOrder(db, createOrderPayload(store));
    const claimed = await db.asRole("postgres", async (s) => {
      const [{ year }] = await s.query<{ year: number }>(
        "select public.order_year_of(now(), 'Asia/Kolkata') as year",
      );
      const at = (await s.query<{ at: string }>("select now()::text as at"))[0].at;
      const id = await insertOrderRow(
        s,
        { storeId: store.storeId, productId: store.products[0].id },
        at,
        year,
        "UTC",
      );
      return (await s.query<{ time_zone: string }>("select time_zone from public.orders where id = $1", [
        id,
      ]))[0];
    });
    assert.deepEqual(claimed, { time_zone: "Asia/Kolkata" });
    const refused = await db.asRole(
      "postgres",
      (s) => s.query("update public.orders set time_zone = 'UTC' where id = $1", [response.orderId]),
    ).then(() => "ok", (error: { code?: string }) => error.code);
    assert.equal(refused, "OCM00");
  });
}

Deno.test({
  name:
    "[pglite] the store-zone migration keeps every existing order's number: its zone is UTC, the year check holds and is validated",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { db, remaining } = await pgliteBefore("20261126000600");
    try {
      const store = await createTestStore(db);
      // numbered in UTC's year: 01:30 IST on 1 January 2026 is still 2025 in UTC (no zone column yet)
      const id = await db.asRole(
        "postgres",
        (s) =>
          insertOrderRow(
            s,
            { storeId: store.storeId, productId: store.products[0].id },
            "2025-12-31T20:00:00Z",
            2025,
            null,
          ),
      );
      for (const m of remaining) await db.execTransaction(m.sql);
      const [row] = await db.query<{ order_year: number; order_number: string; time_zone: string }>(
        "select order_year, order_number, time_zone from public.orders where id = $1",
        [id],
      );
      assert.deepEqual(
        { ...row, order_number: row.order_number.slice(0, 9) },
        { order_year: 2025, order_number: "ORD-2025-", time_zone: "UTC" },
      );
      const [check] = await db.query<{ convalidated: boolean }>(
        "select convalidated from pg_constraint where conname = 'orders_year_in_time_zone'",
      );
      assert.deepEqual(check, { convalidated: true });
    } finally {
      await db.close();
    }
  },
});
