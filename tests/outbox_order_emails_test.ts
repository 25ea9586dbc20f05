/**
 * An order's buyer and seller e-mails come from the order's own rows when a drain claims them (the outbox
 * keeps no snapshot of new orders), while rows written with a snapshot are still sent from it. Through
 * supabase-js and the PostgREST stand-in as the drain calls them, on PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import type { OrderOutboxEmail, OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import { createTestStore } from "./support/catalogue.ts";
import { testDatabases } from "./support/databases.ts";
import { claimAll, createOrderWithEmails, serveOutbox } from "./support/outbox_orders.ts";

for (const { name, db } of await testDatabases()) {
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `[${name}] ${title}`, sanitizeOps: false, sanitizeResources: false, fn });

  /** Claims every due row (each claim stale at once) and keeps those of one order, buyer first. */
  const claimOrder = async (orderId: string): Promise<OutboxEmail[]> => {
    const served = serveOutbox(db);
    try {
      return (await claimAll(served.outbox)).emails.filter((row) => row.orderId === orderId)
        .sort((a, b) => a.kind.localeCompare(b.kind));
    } finally {
      await served.close();
    }
  };

  test("claim_due_emails() gives a drain the content create_order gave its caller, read from the order's rows, with its payments and refunds", async () => {
    const store = await createTestStore(db);
    const emails = await createOrderWithEmails(db, store);
    const claimed = await claimOrder(emails[0].orderId);
    // what a cancelled order's confirmation says of the money: none of either yet
    const money = { recordedPayments: { count: 0, amountMinor: null }, refunds: [] };
    assert.deepEqual(
      claimed.map((e) => [e.kind, e.to, e.replyTo, e.payload]),
      emails.map((e) => [e.kind, e.to, e.replyTo, { ...e.payload, ...money }]),
    );
  });

  test("claim_due_emails() shows the buyer's details as the order holds them when the drain sends", async () => {
    const store = await createTestStore(db);
    const [buyer] = (await createOrderWithEmails(db, store)) as OrderOutboxEmail[];
    const corrected = { ...buyer.payload.shippingAddress, line1: "14 MG Road" };
    await db.query("update public.orders set shipping_address = $2::text::jsonb where id = $1", [
      buyer.orderId,
      JSON.stringify(corrected),
    ]);
    const [claimed] = (await claimOrder(buyer.orderId)) as OrderOutboxEmail[];
    assert.deepEqual(claimed.payload.shippingAddress, corrected);
  });

  test("claim_due_emails() sends a row written with its own snapshot from that snapshot, with the order's number and current status", async () => {
    const store = await createTestStore(db);
    const [buyer] = await createOrderWithEmails(db, store);
    // a row as create_order wrote them before: the order's content in the row, without the number
    const { orderNumber, ...snapshot } = {
      ...buyer.payload,
      store: { ...buyer.payload.store, name: "Old Name" },
    };
    await db.query(
      "update public.email_outbox set payload = $2::text::jsonb where order_id = $1 and kind = 'buyer'",
      [buyer.orderId, JSON.stringify(snapshot)],
    );
    const [claimed] = await claimOrder(buyer.orderId);
    assert.deepEqual(claimed.payload, { ...snapshot, orderNumber, currentStatus: "payment_pending" });
  });

  test("email_outbox refuses a status e-mail without its content", async () => {
    const store = await createTestStore(db);
    const [buyer] = await createOrderWithEmails(db, store);
    await assert.rejects(
      db.query(
        "insert into public.email_outbox (order_id, kind, to_email) values ($1, 'status_paid', 'a@example.com')",
        [buyer.orderId],
      ),
      (error: { code?: string }) => error.code === "23514",
    );
  });
}
