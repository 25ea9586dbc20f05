/**
 * update_order_status, move_order_status and the history's rules in SQL: the functions called as the service
 * role would through /rest/v1/rpc, the tables' rules written to as their owner (no API role writes them, and
 * the owner's plain SQL must keep them too): the database defends the lifecycle and the history against a
 * direct caller that skipped the function's validation.
 */
import assert from "node:assert/strict";
import type { SqlDatabase } from "../local/sql_database.ts";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";
import { historyRows, orderStatus, statusEmailRows } from "./support/status_moves.ts";

async function newOrderId(db: SqlDatabase): Promise<string> {
  const { response } = await callCreateOrder(db, createOrderPayload(await createTestStore(db)));
  return response.orderId;
}

/** The tables' owner: the only role that writes them outside the functions. */
const OWNER = "postgres";

/** Runs `sql` as `role`; the SQLSTATE and detail it fails with, or null when it succeeds. */
async function failure(db: SqlDatabase, sql: string, params: unknown[] = [], role = "service_role") {
  try {
    await db.asRole(role, (s) => s.query(sql, params));
    return null;
  } catch (error) {
    const { code, detail } = error as { code?: string; detail?: string };
    // our own SQLSTATEs carry JSON details; PostgreSQL's carry text ("Failing row contains ...")
    return { code, detail: detail && code?.startsWith("OC") ? JSON.parse(detail) : undefined };
  }
}

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  test("update_order_status() refuses what a direct caller gets wrong with OCN00 and the fields' paths, writing nothing", async (t) => {
    const orderId = await newOrderId(db);
    const cases: [string, string, unknown[], string[]][] = [
      ["an unknown status", "select public.update_order_status('refunded', $1::uuid)", [orderId], ["status"]],
      ["no order", "select public.update_order_status('paid')", [], ["orderId"]],
      [
        "an id and a number",
        "select public.update_order_status('paid', $1::uuid, p_store_id => $1::uuid, p_order_number => 'ORD-2026-000001')",
        [orderId],
        ["orderId"],
      ],
      [
        "a cancellation without reason",
        "select public.update_order_status('cancelled', $1::uuid)",
        [orderId],
        [
          "note",
        ],
      ],
      [
        "a blank reason",
        "select public.update_order_status('cancelled', $1::uuid, p_note => '  ')",
        [orderId],
        ["note"],
      ],
      [
        "a line break in the note",
        "select public.update_order_status('paid', $1::uuid, p_note => e'ok\\nPAYMENT')",
        [orderId],
        ["note"],
      ],
      [
        "tracking with paid",
        "select public.update_order_status('paid', $1::uuid, p_tracking_number => 'T1')",
        [orderId],
        ["status"],
      ],
      [
        "a javascript: link",
        "select public.update_order_status('shipped', $1::uuid, p_tracking_url => 'javascript:alert(1)')",
        [orderId],
        ["trackingUrl"],
      ],
    ];
    for (const [label, sql, params, paths] of cases) {
      await t.step(label, async () => {
        const refused = await failure(db, sql, params);
        assert.equal(refused?.code, "OCN00");
        assert.deepEqual(refused?.detail.map((issue: { path: string }) => issue.path), paths);
      });
    }
    assert.equal(await orderStatus(db, orderId), "payment_pending");
    assert.equal((await historyRows(db, orderId)).length, 1);
  });

  test("update_order_status() answers OCO04 for an unknown order and OCT01 with the allowed moves for a forbidden one", async () => {
    const orderId = await newOrderId(db);
    const unknown = await failure(db, "select public.update_order_status('paid', $1::uuid)", [
      crypto.randomUUID(),
    ]);
    assert.equal(unknown?.code, "OCO04");
    const forbidden = await failure(db, "select public.update_order_status('delivered', $1::uuid)", [
      orderId,
    ]);
    assert.deepEqual(forbidden, {
      code: "OCT01",
      detail: { from: "payment_pending", to: "delivered", allowed: ["paid", "cancelled"] },
    });
  });

  test("the lifecycle trigger names the allowed moves when it refuses a plain update of the status", async () => {
    const orderId = await newOrderId(db);
    await db.asRole(
      OWNER,
      (s) => s.query("update public.orders set status = 'cancelled' where id = $1", [orderId]),
    );
    const refused = await failure(
      db,
      "update public.orders set status = 'paid' where id = $1",
      [orderId],
      OWNER,
    );
    assert.deepEqual(refused, { code: "OCT01", detail: { from: "cancelled", to: "paid", allowed: [] } });
    assert.deepEqual((await historyRows(db, orderId)).map((h) => `${h.move} ${h.actor}`), [
      "->payment_pending system",
      "payment_pending>cancelled system",
    ]);
  });

  test("update_order_status() rolls back a move whose deadline has passed (OCT00), writing nothing", async () => {
    const orderId = await newOrderId(db);
    const late = await failure(
      db,
      "select public.update_order_status('paid', $1::uuid, p_deadline => now() - interval '1 second')",
      [orderId],
    );
    assert.equal(late?.code, "OCT00");
    assert.equal(await orderStatus(db, orderId), "payment_pending");
    assert.deepEqual(await statusEmailRows(db, orderId), []);
  });

  test("order_status_history refuses tracking details on a move other than shipped and control characters, whoever writes", async (t) => {
    const orderId = await newOrderId(db);
    const insert = (columns: string, values: string) =>
      failure(
        db,
        `insert into public.order_status_history (order_id, from_status, to_status, ${columns})
         values ($1, 'payment_pending', 'paid', ${values})`,
        [orderId],
        OWNER,
      );
    const cases: [string, string, string][] = [
      ["a tracking number on paid", "tracking_number", "'T1'"],
      ["a line break in a note", "note", "e'ok\\nShip now'"],
      ["a bidi override in a note", "note", "e'\\u202Eok'"],
      ["an actor of no kind", "actor", "'buyer'"],
      ["a link that is not http(s)", "tracking_url", "'javascript:alert(1)'"],
    ];
    for (const [label, column, value] of cases) {
      await t.step(label, async () => assert.equal((await insert(column, value))?.code, "23514"));
    }
  });

  test("a move's details label only the history row of the order they name", async () => {
    const named = await newOrderId(db);
    const other = await newOrderId(db);
    await db.asRole(OWNER, async (s) => {
      await s.query(
        "select set_config('order_status.move', $1, true)",
        [JSON.stringify({ orderId: named, actor: "seller", note: "for the named order" })],
      );
      await s.query("update public.orders set status = 'paid' where id = $1", [other]);
    });
    assert.deepEqual((await historyRows(db, other)).at(-1), {
      move: "payment_pending>paid",
      actor: "system",
      note: null,
      carrier: null,
      tracking_number: null,
      tracking_url: null,
    });
  });

  test("move_order_status() is executable by no API role: only update_order_status and confirm_payment move orders", async () => {
    const orderId = await newOrderId(db);
    for (const role of ["service_role", "authenticated", "anon"]) {
      const refused = await db.asRole(
        role,
        (s) => s.query("select public.move_order_status($1, 'paid', 'payment_gateway')", [orderId]),
      ).then(() => null, (error: { code?: string }) => error.code);
      assert.equal(refused, "42501", role);
    }
    assert.equal(await orderStatus(db, orderId), "payment_pending");
    // the two functions that call it still do, as the service role
    await db.asRole(
      "service_role",
      (s) => s.query("select public.update_order_status('paid', $1)", [orderId]),
    );
    const paid = await newOrderId(db);
    await db.asRole(
      "service_role",
      (s) =>
        s.query("select public.confirm_payment($1, 71545, 'INR', 'razorpay', $2, $3)", [
          paid,
          `pay_${paid}`,
          `evt_${paid}`,
        ]),
    );
    assert.deepEqual([await orderStatus(db, orderId), await orderStatus(db, paid)], ["paid", "paid"]);
  });

  test("move_order_status() writes the status e-mail once per order and status, claimed for its caller", async () => {
    const orderId = await newOrderId(db);
    // as the functions that call it run it: as the owner of the tables (security definer)
    const [row] = await db.query<
      { result: { changed: boolean; emails: { kind: string; claimToken: string }[] } }
    >(
      "select public.move_order_status($1, 'paid', 'system') as result",
      [orderId],
    );
    assert.equal(row.result.changed, true);
    assert.deepEqual(row.result.emails.map((e) => e.kind), ["status_paid"]);
    assert.equal(typeof row.result.emails[0].claimToken, "string");
    assert.deepEqual(await statusEmailRows(db, orderId), [
      { kind: "status_paid", to_email: "asha@example.com", status: "sending" },
    ]);
    const duplicate = await failure(
      db,
      `insert into public.email_outbox (order_id, kind, to_email, payload) values ($1, 'status_paid', 'a@example.com', '{}')`,
      [orderId],
      OWNER,
    );
    assert.equal(duplicate?.code, "23505");
    const unknownKind = await failure(
      db,
      `insert into public.email_outbox (order_id, kind, to_email, payload) values ($1, 'status_processing', 'a@example.com', '{}')`,
      [orderId],
      OWNER,
    );
    assert.equal(unknownKind?.code, "23514");
  });
}
