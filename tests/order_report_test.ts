/** `deno task orders` shows dead e-mails: the report's queries on both databases, the task itself on PostgreSQL. */
import assert from "node:assert/strict";
import { deadEmails, latestOrders } from "../local/order_report.ts";
import type { SqlDatabase } from "../local/sql_database.ts";
import type { OutboxEmail } from "../supabase/functions/_shared/email/order_email.ts";
import { createTestStore } from "./support/catalogue.ts";
import { sharedPostgresUrl, testDatabases } from "./support/databases.ts";
import { createOrderWithEmails, serveOutbox } from "./support/outbox_orders.ts";

/** An order whose buyer e-mail failed its 10th send (dead) and whose seller e-mail was sent. */
async function orderWithDeadBuyerEmail(
  db: SqlDatabase,
): Promise<{ buyer: OutboxEmail; orderNumber: string }> {
  const store = await createTestStore(db);
  const served = serveOutbox(db);
  try {
    const [buyer, seller] = await createOrderWithEmails(db, store);
    // nine sends of the buyer's e-mail failed before (each with its claim); this claim is its tenth
    await db.query("update public.email_outbox set failures = 9, attempts = 9 where id = $1", [buyer.id]);
    const recorded = await served.outbox.recordResults([
      {
        id: buyer.id,
        claimToken: buyer.claimToken,
        attempts: 1,
        error: "resend 422 validation_error",
        maybeDelivered: false,
      },
      { id: seller.id, claimToken: seller.claimToken, attempts: 1, providerId: "p-seller" },
    ]);
    assert.deepEqual(recorded.map((r) => r.status).sort(), ["dead", "sent"]);
    return { buyer, orderNumber: buyer.payload.orderNumber };
  } finally {
    await served.close();
  }
}

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] deadEmails() and latestOrders() show a dead e-mail with its order, attempts and error`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const { buyer, orderNumber } = await orderWithDeadBuyerEmail(db);
      const dead = (await deadEmails(db, 1000)).filter((line) => line.outbox_id === buyer.id);
      assert.deepEqual(
        dead.map((line) => [line.order_number, line.kind, line.failures, line.attempts, line.last_error]),
        [
          [orderNumber, "buyer", 10, 10, "resend 422 validation_error"],
        ],
      );
      const order = (await latestOrders(db, 1000)).find((line) => line.order_number === orderNumber);
      assert.equal(order?.emails, "buyer: dead, seller: sent");
    },
  });
}

const postgresUrl = await sharedPostgresUrl();
Deno.test({
  name: "[postgres] deno task orders prints the dead e-mails after the latest orders",
  ignore: postgresUrl === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { db } = (await testDatabases()).find((entry) => entry.name === "postgres")!;
    const { buyer } = await orderWithDeadBuyerEmail(db);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "orders", "3"],
      env: { DATABASE_URL: postgresUrl!, NO_COLOR: "1" },
      cwd: new URL("..", import.meta.url),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.match(text, /^dead e-mails \(\d+\+?\): their 10th send failed, no drain sends them again\.$/m);
    assert.ok(text.indexOf(buyer.id) > text.indexOf("dead e-mails"), "the dead row's outbox id is listed");
  },
});
