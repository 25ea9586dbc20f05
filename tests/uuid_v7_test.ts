import assert from "node:assert/strict";
import { createTestStore } from "./support/catalogue.ts";
import { callCreateOrder, createOrderPayload } from "./support/create_order_payload.ts";
import { testDatabases } from "./support/databases.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix time in milliseconds that a UUIDv7 starts with. */
function _millisecondsOf(uuid: string): number {
  return parseInt(uuid.replaceAll("-", "").slice(0, 12), 16);
}

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] uuid_v7() gives RFC 9562 version 7 UUIDs that start with the database's time in milliseconds`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const [{ before, ids, after }] = await db.query<{ before: string; ids: string[]; after: string }>(
        `select (extract(epoch from clock_timestamp()) * 1000)::bigint::text as before,
           array(select public.uuid_v7()::text from generate_series(1, 200)) as ids,
           (extract(epoch from clock_timestamp()) * 1000)::bigint::text as after`,
      );
      assert.equal(ids.length, 200);
      assert.equal(new Set(ids).size, 200);
      for (const id of ids) {
        assert.match(id, UUID_V7);
        assert.ok(_millisecondsOf(id) >= Number(before) - 1 && _millisecondsOf(id) <= Number(after) + 1, id);
      }
      // generated one after another, their time prefixes never go back
      const times = ids.map(_millisecondsOf);
      assert.deepEqual([...times].sort((a, b) => a - b), times);
    },
  });

  Deno.test({
    name: `[${name}] create_order() writes version-7 ids for the order, its items and its e-mails`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const store = await createTestStore(db);
      const payload = createOrderPayload(store, {
        items: [
          { productId: store.products[0].id, variantId: null, quantity: 1, unitPriceMinor: 34_900 },
          { productId: store.products[1].id, variantId: null, quantity: 1, unitPriceMinor: 19_950 },
        ],
      });
      const result = await callCreateOrder(db, payload);
      const [row] = await db.query<{ items: string[]; emails: string[] }>(
        `select array(select i.id::text from public.order_items i where i.order_id = $1 order by i.position) as items,
           array(select e.id::text from public.email_outbox e where e.order_id = $1 order by e.kind) as emails`,
        [result.response.orderId],
      );
      assert.match(result.response.orderId, UUID_V7);
      assert.equal(row.items.length, 2);
      assert.equal(row.emails.length, 2);
      for (const id of [...row.items, ...row.emails]) assert.match(id, UUID_V7);
      // the e-mails the call hands back are the rows it wrote
      assert.deepEqual(result.emails.map((e) => e.id).sort(), [...row.emails].sort());
    },
  });

  Deno.test({
    name: `[${name}] the keys written per order default to uuid_v7(): orders, items, outbox and payments`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const rows = await db.query<{ table_name: string; column_default: string }>(
        `select table_name, column_default from information_schema.columns
         where table_schema = 'public' and column_name = 'id'
           and table_name in ('orders', 'order_items', 'email_outbox', 'payments')
         order by table_name`,
      );
      assert.deepEqual(rows, [
        { table_name: "email_outbox", column_default: "uuid_v7()" },
        { table_name: "order_items", column_default: "uuid_v7()" },
        { table_name: "orders", column_default: "uuid_v7()" },
        { table_name: "payments", column_default: "uuid_v7()" },
      ]);
      await createTestStore(db); // the catalogue keeps its random keys: it is written once, not per order
    },
  });

  Deno.test({
    name: `[${name}] uuid_v7() is executable by service_role only`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      for (const role of ["anon", "authenticated"]) {
        await assert.rejects(
          db.asRole(role, (s) => s.query("select public.uuid_v7()")),
          (error: { code?: string }) => error.code === "42501",
        );
      }
      const [{ id }] = await db.asRole(
        "service_role",
        (s) => s.query<{ id: string }>("select public.uuid_v7() as id"),
      );
      assert.match(id, UUID_V7);
    },
  });
}
