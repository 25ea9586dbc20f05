/**
 * The order service's writers as a mix for runWriterMix (writer_mix.ts): create_order, update_order_status,
 * confirm_payment and cancel_unpaid_orders, over stores whose products and variants track stock, with two in
 * five orders placed a few minutes back (create_order takes an order time up to 5 minutes off) so that
 * cancel_unpaid_orders finds unpaid orders to cancel, and restock, all through the run; and the refunds'
 * writers: confirm_payment writes refunds (one payment in five is of the wrong amount), update_order_status's
 * cancellations of paid orders write them too, and the drain's claim_due_refunds and record_refund_result and
 * payment-webhook's record_refund_event take them from pending to issued to processed or failed. Then the
 * invariants that must hold whatever the interleaving: every stock row is its initial stock less the items
 * of the orders not cancelled, every store's numbers of a year are 1..n without a gap, and every payment
 * whose money is due back has exactly one refund.
 */
import type { SqlDatabase } from "../../local/sql_database.ts";
import { calculateCheckoutFee } from "../../supabase/functions/_shared/orders/money.ts";
import type { MixWriter } from "./writer_mix.ts";

/** One thing a buyer can order: a product without variants, or one variant of a product. */
interface Sellable {
  productId: string;
  variantId: string | null;
  priceMinor: number;
}

/** A store of the mix with what it sells and the stock each tracked row started with. */
interface MixStore {
  storeId: string;
  sellables: Sellable[];
}

/** An order the mix placed, for the writers that act on orders. */
interface MixOrder {
  id: string;
  finalMinor: number;
}

/** The mix's stores and the orders placed so far; its writers; its invariants. */
export interface OrderWriterMix {
  stores: MixStore[];
  orders: MixOrder[];
  writers: MixWriter[];
  /** Places `count` orders before a run, so that the order writers have orders from the start. */
  placeOrders(count: number, random: () => number): Promise<void>;
  /** Stock rows whose stock is not their initial stock less the items of non-cancelled orders. */
  stockMismatches(): Promise<{ row: string; expected: number; actual: number }[]>;
  /** What became of the mix's orders: how many there are, paid, and cancelled by the seller or the system. */
  outcome(): Promise<{ orders: number; paid: number; cancelledBySeller: number; cancelledBySystem: number }>;
  /** Store and year pairs whose order numbers are not exactly 1..last_sequence. */
  numberingGaps(): Promise<{ storeId: string; year: number; lastSequence: number; orders: number }[]>;
  /**
   * Payments whose money is due back (flagged by their decision, or `paid` for an order since cancelled)
   * with no refund, or with more than one.
   */
  refundMismatches(): Promise<{ paymentId: string; refunds: number }[]>;
  /** How many refunds the mix's orders have, by status. */
  refunds(): Promise<Record<string, number>>;
}

/** Stock each tracked row starts with: one low row, so OUT_OF_STOCK and restocks both happen. */
const LOW_STOCK = 300;
const HIGH_STOCK = 1_000_000;
/** How long each call may take before the database gives up (OCT00 / lock_timeout). */
const CALL_BUDGET_MS = 10_000;

/** Creates `storeCount` stores for the mix (a few minutes' worth of orders for 16 clients). */
export async function orderWriterMix(db: SqlDatabase, storeCount = 3): Promise<OrderWriterMix> {
  const stores: MixStore[] = [];
  const initial = new Map<string, number>();
  for (let s = 0; s < storeCount; s++) stores.push(await _createStore(db, initial));
  const orders: MixOrder[] = [];
  let next = 0;
  /** Refunds the drain claimed, for record_refund_result; refunds issued, for record_refund_event. */
  const claimed: { refundId: string; claimToken: string }[] = [];
  const issued: { refundId: string; providerPaymentId: string; providerRefundId: string }[] = [];
  const providerPaymentIds = new Map<string, string>();

  const createOrder = async (session: { query: SqlDatabase["query"] }, random: () => number) => {
    const store = stores[Math.floor(random() * stores.length)];
    const payload = _orderPayload(store, random);
    const [{ result }] = await session.query<{ result: { response: { orderId: string } } }>(
      "select public.create_order($1::text::jsonb) as result",
      [JSON.stringify(payload)],
    );
    return () => orders.push({ id: result.response.orderId, finalMinor: payload.finalMinor });
  };

  const writers: MixWriter[] = [
    { name: "create_order", weight: 10, run: createOrder },
    {
      name: "update_order_status",
      weight: 4,
      async run(session, random) {
        const order = _anyOrder(orders, random);
        const status = random() < 0.5
          ? "cancelled"
          : ["paid", "processing", "shipped"][Math.floor(random() * 3)];
        await session.query(
          `select public.update_order_status(p_status => $1, p_order_id => $2, p_note => $3, p_deadline => $4)`,
          [status, order.id, status === "cancelled" ? "Cancelled in the writer mix" : null, _deadline()],
        );
      },
    },
    {
      name: "confirm_payment",
      weight: 4,
      async run(session, random) {
        const order = _anyOrder(orders, random);
        const n = `${Date.now()}_${next++}`;
        // one in five of the wrong amount: its money is due back, a refund written with the payment
        await session.query("select public.confirm_payment($1, $2, 'INR', 'razorpay', $3, $4, $5, 'card')", [
          order.id,
          random() < 0.2 ? 100 : order.finalMinor,
          `pay_mix_${n}`,
          `evt_mix_${n}`,
          _deadline(),
        ]);
      },
    },
    {
      name: "claim_due_refunds",
      weight: 1,
      async run(session) {
        // a short claim: one whose result never comes lapses, and a later claim takes the refund again
        const [{ refunds }] = await session.query<
          { refunds: { refundId: string; claimToken: string; providerPaymentId: string }[] }
        >("select public.claim_due_refunds(5, 0, 2000) as refunds");
        return () => {
          for (const refund of refunds) {
            providerPaymentIds.set(refund.refundId, refund.providerPaymentId);
            claimed.push(refund);
          }
        };
      },
    },
    {
      name: "record_refund_result",
      weight: 2,
      async run(session, random) {
        const refund = claimed.shift();
        if (!refund) return;
        const providerRefundId = `rfnd_mix_${Date.now()}_${next++}`;
        const ok = random() < 0.7;
        const [{ recorded }] = await session.query<{ recorded: { recorded: boolean } }>(
          `select public.record_refund_result($1, $2, p_provider_refund_id => $3, p_provider_status => $4,
             p_error => $5) as recorded`,
          [
            refund.refundId,
            refund.claimToken,
            ok ? providerRefundId : null,
            ok ? "pending" : null,
            ok ? null : "razorpay answered 500",
          ],
        );
        return () => {
          if (ok && recorded.recorded) {
            issued.push({
              refundId: refund.refundId,
              providerPaymentId: providerPaymentIds.get(refund.refundId)!,
              providerRefundId,
            });
          }
        };
      },
    },
    {
      name: "record_refund_event",
      weight: 1,
      async run(session, random) {
        const refund = issued.shift();
        if (!refund) return;
        await session.query("select public.record_refund_event('razorpay', $1, $2, $3, $4, $5, $6)", [
          `evt_${crypto.randomUUID()}`,
          refund.providerPaymentId,
          refund.providerRefundId,
          refund.refundId,
          random() < 0.8 ? "processed" : "failed",
          _deadline(),
        ]);
      },
    },
    {
      name: "cancel_unpaid_orders",
      weight: 1,
      async run(session) {
        // gateway orders unpaid for a minute: the mix's backdated orders
        await session.query("select public.cancel_unpaid_orders(1, 0, 20, $1)", [_deadline()]);
      },
    },
  ];

  return {
    stores,
    orders,
    writers,
    async placeOrders(count, random) {
      for (let i = 0; i < count; i++) (await db.asRole("service_role", (s) => createOrder(s, random)))();
    },
    async stockMismatches() {
      const taken = new Map<string, number>();
      const rows = await db.query<{ row: string; taken: number }>(
        `select case when i.stock_source = 'variant' then 'variant:' || i.variant_id
                     else 'product:' || i.product_id end as row,
                sum(i.quantity)::int as taken
         from public.order_items i join public.orders o on o.id = i.order_id
         where o.store_id = any($1::uuid[]) and o.status <> 'cancelled' and i.stock_source is not null
         group by 1`,
        [stores.map((s) => s.storeId)],
      );
      for (const { row, taken: n } of rows) taken.set(row, n);
      const mismatches = [];
      for (const [row, start] of initial) {
        const [kind, id] = row.split(":");
        const [{ stock }] = await db.query<{ stock: number }>(
          `select stock_quantity as stock from public.${kind === "variant" ? "product_variants" : "products"}
           where id = $1`,
          [id],
        );
        const expected = start - (taken.get(row) ?? 0);
        if (stock !== expected) mismatches.push({ row, expected, actual: stock });
      }
      return mismatches;
    },
    async outcome() {
      const [row] = await db.query<
        { orders: number; paid: number; cancelledBySeller: number; cancelledBySystem: number }
      >(
        `select count(*)::int as orders,
           count(*) filter (where exists (
             select 1 from public.order_status_history h where h.order_id = o.id and h.to_status = 'paid'
           ))::int as paid,
           count(*) filter (where exists (
             select 1 from public.order_status_history h
             where h.order_id = o.id and h.to_status = 'cancelled' and h.actor = 'seller'
           ))::int as "cancelledBySeller",
           count(*) filter (where exists (
             select 1 from public.order_status_history h
             where h.order_id = o.id and h.to_status = 'cancelled' and h.actor = 'system'
           ))::int as "cancelledBySystem"
         from public.orders o where o.store_id = any($1::uuid[])`,
        [stores.map((s) => s.storeId)],
      );
      return row;
    },
    refundMismatches() {
      return db.query(
        `select p.id as "paymentId", (select count(*)::int from public.refunds r where r.payment_id = p.id) as refunds
         from public.payments p join public.orders o on o.id = p.order_id
         where o.store_id = any($1::uuid[])
           and ((p.refund_due or (p.outcome = 'paid' and o.status = 'cancelled'))
             <> exists (select 1 from public.refunds r where r.payment_id = p.id)
             or (select count(*) from public.refunds r where r.payment_id = p.id) > 1)`,
        [stores.map((s) => s.storeId)],
      );
    },
    async refunds() {
      const rows = await db.query<{ status: string; count: number }>(
        `select r.status, count(*)::int as count from public.refunds r join public.orders o on o.id = r.order_id
         where o.store_id = any($1::uuid[]) group by 1 order by 1`,
        [stores.map((s) => s.storeId)],
      );
      return Object.fromEntries(rows.map((row) => [row.status, row.count]));
    },
    numberingGaps() {
      return db.query(
        `select c.store_id as "storeId", c.year, c.last_sequence as "lastSequence", count(o.id)::int as orders
         from public.order_counters c
         left join public.orders o on o.store_id = c.store_id and o.order_year = c.year
         where c.store_id = any($1::uuid[])
         group by 1, 2, 3
         having count(o.id) <> c.last_sequence or count(distinct o.order_sequence) <> c.last_sequence
           or min(o.order_sequence) <> 1 or max(o.order_sequence) <> c.last_sequence
         union all
         select o.store_id, o.order_year, null, count(*)::int
         from public.orders o
         where o.store_id = any($1::uuid[])
           and not exists (
             select 1 from public.order_counters c where c.store_id = o.store_id and c.year = o.order_year
           )
         group by 1, 2`,
        [stores.map((s) => s.storeId)],
      );
    },
  };
}

function _deadline(): string {
  return new Date(Date.now() + CALL_BUDGET_MS).toISOString();
}

function _anyOrder(orders: MixOrder[], random: () => number): MixOrder {
  if (orders.length === 0) throw Object.assign(new Error("no order placed yet"), { code: "no-order" });
  return orders[Math.floor(random() * orders.length)];
}

/** A store with four products (one low on stock, one untracked) and a fifth sold in two variants. */
async function _createStore(db: SqlDatabase, initial: Map<string, number>): Promise<MixStore> {
  const storeId = crypto.randomUUID();
  await db.query("insert into public.stores (id, name, owner_email) values ($1, 'Mix Store', $2)", [
    storeId,
    `owner-${storeId.slice(0, 8)}@example.com`,
  ]);
  const sellables: Sellable[] = [];
  const stocks = [LOW_STOCK, HIGH_STOCK, HIGH_STOCK, null];
  for (const [i, stock] of stocks.entries()) {
    const productId = crypto.randomUUID();
    const priceMinor = 10_000 + i * 2_550;
    await db.query(
      "insert into public.products (id, store_id, name, price, stock_quantity) values ($1, $2, $3, $4, $5)",
      [productId, storeId, `Product ${i}`, priceMinor / 100, stock],
    );
    if (stock !== null) initial.set(`product:${productId}`, stock);
    sellables.push({ productId, variantId: null, priceMinor });
  }
  const productId = crypto.randomUUID();
  await db.query("insert into public.products (id, store_id, name, price) values ($1, $2, 'Sized', 200.00)", [
    productId,
    storeId,
  ]);
  for (const [i, stock] of [HIGH_STOCK, LOW_STOCK].entries()) {
    const variantId = crypto.randomUUID();
    await db.query(
      "insert into public.product_variants (id, product_id, name, price, stock_quantity) values ($1, $2, $3, null, $4)",
      [variantId, productId, `Size ${i}`, stock],
    );
    initial.set(`variant:${variantId}`, stock);
    sellables.push({ productId, variantId, priceMinor: 20_000 });
  }
  return { storeId, sellables };
}

/** A gateway/card order of 1 to 4 different sellables in random order, now or a few minutes back. */
function _orderPayload(store: MixStore, random: () => number) {
  const shuffled = [...store.sellables].sort(() => random() - 0.5);
  const items = shuffled.slice(0, 1 + Math.floor(random() * 4)).map((s) => ({
    productId: s.productId,
    variantId: s.variantId,
    quantity: 1 + Math.floor(random() * 3),
    unitPriceMinor: s.priceMinor,
  }));
  const totalMinor = items.reduce((sum, i) => sum + i.unitPriceMinor * i.quantity, 0);
  const feeMinor = calculateCheckoutFee(totalMinor, "gateway", "card");
  // one IP and four e-mail addresses across every store: rate-limit buckets shared between stores
  const email = `buyer${Math.floor(random() * 4)}@example.com`;
  return {
    storeId: store.storeId,
    // two in five placed 70-240 s back, unpaid past the batch's one-minute window at once
    orderedAt: new Date(Date.now() - (random() < 0.4 ? 70 + random() * 170 : 0) * 1000).toISOString(),
    deadline: _deadline(),
    buyer: { email, name: "Mix Buyer", phone: "+919876543210" },
    shippingAddress: {
      line1: "12 MG Road",
      line2: null,
      city: "Pune",
      state: "MH",
      postalCode: "411001",
      country: "IN",
    },
    paymentMethod: "gateway",
    gatewayMethod: "card",
    paymentProofUrl: null,
    clientIp: "198.51.100.23",
    buyerUserId: null,
    items,
    totalMinor,
    feeMinor,
    finalMinor: totalMinor + feeMinor,
    idempotency: null,
    rateLimits: {
      ipLimit: 1_000_000,
      ipWindowSeconds: 3600,
      emailLimit: 1_000_000,
      emailWindowSeconds: 3600,
    },
  };
}
