/**
 * No deadlock in any mix (contract, "Under concurrency, at scale, on a slow day"): the database's writers
 * run at once on 16 sessions of a real PostgreSQL for 22 s, weighted as a busy store runs them, over
 * stock-tracked products with unpaid orders old enough for cancel_unpaid_orders to cancel and restock
 * throughout, and refunds written, claimed, issued and settled by the refunds' writers. Every writer takes
 * its locks in the one global order (docs/develop.md, "The database"), so no transaction fails with a
 * deadlock or a serialization failure; the stock, the numbering and the refunds come out exact. PostgreSQL
 * only: PGlite runs one transaction at a time.
 */
import assert from "node:assert/strict";
import { sharedPostgres } from "./support/databases.ts";
import { orderWriterMix } from "./support/order_writer_mix.ts";
import { ownPool } from "./support/postgres_faults.ts";
import { failuresWith, mixTable, runWriterMix, seededRandom } from "./support/writer_mix.ts";

/**
 * Failures a writer may meet in this mix on purpose: a move the lifecycle refuses, a sold-out row, and an
 * order whose store has K orders in the database already (OCW29 STORE_BUSY: the function's adapter makes
 * it again; here, with about eight create_order calls at once over three stores, the mix counts it).
 */
const EXPECTED_FAILURES = new Set(["OCT01", "OCQ09", "OCW29"]);

const postgres = await sharedPostgres();
Deno.test({
  name:
    "[postgres] the writers run concurrently (16 sessions, 22 s, stock, backdated unpaid orders, refunds claimed, issued and settled) without a deadlock or a serialization failure, stock, numbering and refunds exact",
  ignore: postgres === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = postgres!;
    const mix = await orderWriterMix(db);
    await mix.placeOrders(30, seededRandom(1));
    const sessions = await ownPool(db, 16);
    let result;
    try {
      result = await runWriterMix(sessions, mix.writers, { clients: 16, durationMs: 22_000 });
    } finally {
      await sessions.close();
    }
    console.log(
      `writer mix, ${result.clients} sessions, ${(result.durationMs / 1000).toFixed(1)} s:\n${
        mixTable(result)
      }`,
    );

    assert.equal(failuresWith(result, "40P01"), 0, "deadlocks");
    assert.equal(failuresWith(result, "40001"), 0, "serialization failures");
    const unexpected = Object.entries(result.writers).flatMap(([name, w]) =>
      Object.entries(w.failed).filter(([code]) => !EXPECTED_FAILURES.has(code)).map(([code, n]) =>
        `${name} ${code} x${n}`
      )
    );
    assert.deepEqual(unexpected, []);
    // every writer ran, the cancellation of unpaid orders included
    for (const [name, w] of Object.entries(result.writers)) {
      assert.ok(w.committed > 0, `${name} never committed`);
    }
    const outcome = await mix.outcome();
    console.log(`orders: ${JSON.stringify(outcome)}`);
    // unpaid orders were cancelled (and restocked) by the batch while the other writers ran
    assert.ok(outcome.cancelledBySystem > 0, "cancel_unpaid_orders cancelled nothing");
    assert.deepEqual(await mix.stockMismatches(), []);
    assert.deepEqual(await mix.numberingGaps(), []);
    const refunds = await mix.refunds();
    console.log(`refunds: ${JSON.stringify(refunds)}`);
    // the refunds' writers ran through every step (processed ones were issued first), and every payment due
    // back has exactly one refund
    for (const status of ["pending", "processed", "failed"]) {
      assert.ok((refunds[status] ?? 0) > 0, `no refund ended ${status}`);
    }
    assert.deepEqual(await mix.refundMismatches(), []);
  },
});
