/**
 * A database with many orders, fast: `generate_series` inserts as the tables' owner, staged once and
 * written by two sessions at once, for the scale test of buyers' reads (tests/buyer_reads_at_scale_test.ts) and the bench's WAL at 100,000
 * orders (bench/wal_at_scale.ts).
 *
 * The rows are what create_order, the status moves and the drain leave, written directly: each order with
 * two items, its status history, its two e-mails (sent) and its store's counter moved past its number. The
 * check constraints all run (amounts add up, the fee follows the method, the number matches its year and
 * sequence). The triggers do not: the load runs under `session_replication_role = replica`, because row by
 * row they cost minutes (`check_new_order`, `keep_order_items`, the deferred `check_order_adds_up`, the
 * foreign keys) and the lifecycle trigger lets an order start only as `payment_pending`. So what they would
 * check holds by construction (items written in the order's transaction, each order's total the sum of its
 * items, the store's currency, ids that exist) and what they would write is written here (each order's
 * history from `payment_pending` through its moves, as `record_order_status_change` records it). Each order
 * is written with its items, history and e-mails in one transaction.
 *
 * The orders are last year's, from 1 July (UTC) a minute apart, so that no order is near a year's end in
 * any time zone; half of them are signed-in buyers' (`signedInBuyers` users, in turn); statuses cycle through
 * pending, cancelled, paid, processing, shipped and delivered. Their keys are random UUIDs (version 4), as
 * the orders created before time-ordered keys (20261126000100_time_ordered_keys.sql) have: uuid_v7() is a
 * SQL function, and a call per row would cost seconds here.
 */
import type { SqlDatabase } from "../local/sql_database.ts";

/** What to load. */
export interface BulkOrders {
  /** Orders to add (over every store with at least two active products, in turn). */
  orders: number;
  /** Distinct users the even-numbered orders belong to, in turn (the odd ones are guests'). */
  signedInBuyers: number;
  /** Write each order's two e-mails, sent (default true; a test of reads may leave the outbox empty). */
  emails?: boolean;
}

/** The user id of signed-in buyer `b` (0-based) of a bulk load. */
export const bulkBuyerSql = (b: string) => `md5('bulk buyer ' || (${b}))::uuid`;

/** The statuses orders cycle through (each order's moves are recorded in its history). */
const _PATHS: Record<string, string[]> = {
  payment_pending: ["payment_pending"],
  cancelled: ["payment_pending", "cancelled"],
  paid: ["payment_pending", "paid"],
  processing: ["payment_pending", "paid", "processing"],
  shipped: ["payment_pending", "paid", "processing", "shipped"],
  delivered: ["payment_pending", "paid", "processing", "shipped", "delivered"],
};
/** 20 slots: 15 % awaiting payment, 5 % cancelled, 20 % paid, 10 % processing, 15 % shipped, 35 % delivered. */
const _CYCLE = [
  ...Array(3).fill("payment_pending"),
  "cancelled",
  ...Array(4).fill("paid"),
  ...Array(2).fill("processing"),
  ...Array(3).fill("shipped"),
  ...Array(7).fill("delivered"),
];

/** Sessions that write the orders at once, a share each: the machine's two cores. */
const PARTS = 2;

/**
 * The scripts of one load ({@linkcode loadBulkOrders} runs them): `stage` computes every order and item into
 * the schema bulk_load; each of `parts` writes a share of the orders, each order with its items, history and
 * e-mails in the same transaction; `finish` moves the counters.
 */
export function bulkOrdersSql(
  { orders, signedInBuyers, emails = true }: BulkOrders,
): { stage: string; parts: string[]; finish: string } {
  if (!Number.isInteger(orders) || orders < 1) {
    throw new Error(`orders must be a positive integer: got ${orders}`);
  }
  if (!Number.isInteger(signedInBuyers) || signedInBuyers < 1) {
    throw new Error(`signedInBuyers must be a positive integer: got ${signedInBuyers}`);
  }
  const cycle = `array[${_CYCLE.map((s) => `'${s}'`).join(", ")}]::public.order_status[]`;
  const paths = Object.entries(_PATHS).map(([status, path]) =>
    `when '${status}' then array[${path.map((s) => `'${s}'`).join(", ")}]`
  ).join("\n    ");
  const stage = `
create schema bulk_load;

create unlogged table bulk_load.orders as
with stores as (
  select s.id as store_id, s.currency, row_number() over (order by s.id) - 1 as k,
    (select array_agg(p.id order by p.id) from public.products p where p.store_id = s.id and p.is_active) as products
  from public.stores s
  where (select count(*) from public.products p where p.store_id = s.id and p.is_active) >= 2
),
numbered as (
  select n, extract(year from now() at time zone 'UTC')::integer - 1 as order_year,
    make_timestamptz(extract(year from now() at time zone 'UTC')::integer - 1, 7, 1, 0, 0, 0, 'UTC')
      + n * interval '1 minute' as created_at
  from generate_series(1, ${orders}) n
),
placed as (
  select o.n, st.store_id, st.currency, o.created_at, o.order_year,
    -- a store's orders in turn over its products: the n-th order of the store takes its n-th and (n + 7)-th
    array[st.products[1 + (o.n / s.stores) % cardinality(st.products)],
      st.products[1 + (o.n / s.stores + 7 % cardinality(st.products)) % cardinality(st.products)]] as products,
    case when o.n % 4 = 3 then 'upi_direct' else 'gateway' end as payment_method,
    case when o.n % 4 <> 3 then (array['card', 'upi', 'wallet'])[1 + o.n % 3] end as gateway_method,
    case when o.n % 2 = 0 then ${bulkBuyerSql(`(o.n / 2) % ${signedInBuyers}`)} end as buyer_user_id,
    (${cycle})[1 + (o.n + o.n / (2 * ${signedInBuyers})) % 20] as status
  from numbered o cross join (select count(*)::integer as stores from stores) s
  join stores st on st.k = o.n % s.stores
)
select gen_random_uuid() as id, p.*,
  (coalesce(c.last_sequence, 0) + row_number() over (partition by p.store_id order by p.n))::integer as order_sequence
from placed p left join public.order_counters c on c.store_id = p.store_id and c.year = p.order_year;

create unlogged table bulk_load.items as
select b.n, b.id as order_id, (i.position - 1)::integer as position, p.id as product_id, v.id as variant_id,
  p.name as product_name, v.name as variant_name, (1 + (b.n + i.position) % 3)::integer as quantity,
  coalesce(v.price, p.price) as unit_price, b.created_at
from bulk_load.orders b
cross join lateral unnest(b.products) with ordinality as i(product_id, position)
join public.products p on p.id = i.product_id
left join lateral (
  select v.* from public.product_variants v where v.product_id = p.id order by v.id limit 1
) v on true;
`;
  const part = (k: number) => `
set local session_replication_role = replica;

insert into public.orders (id, store_id, order_number, order_year, order_sequence, status, payment_method,
  gateway_method, payment_proof_url, buyer_email, buyer_name, buyer_phone, shipping_address, currency,
  total_amount, checkout_fee, final_amount, client_ip, created_at, updated_at, buyer_user_id)
select b.id, b.store_id,
  'ORD-' || b.order_year || '-' || lpad(b.order_sequence::text, greatest(6, length(b.order_sequence::text)), '0'),
  b.order_year, b.order_sequence, b.status, b.payment_method, b.gateway_method,
  case when b.payment_method = 'upi_direct' then 'https://pay.example.com/proof/' || b.n end,
  'buyer' || b.n || '@example.com', 'Buyer ' || b.n, '+919876543210',
  jsonb_build_object('line1', '12 MG Road', 'city', 'Pune', 'state', 'Maharashtra', 'postalCode', '411001',
    'country', 'IN'),
  b.currency, t.total, f.fee, t.total + f.fee,
  '10.0.' || (b.n / 256) % 256 || '.' || b.n % 256, b.created_at, b.created_at, b.buyer_user_id
from bulk_load.orders b
join (select order_id, sum(unit_price * quantity) as total from bulk_load.items group by 1) t on t.order_id = b.id
-- the fee table of checkout_fee_rate(), which orders_fee_follows_method checks on every row
cross join lateral (
  select round(t.total * case b.gateway_method when 'card' then 0.025 when 'upi' then 0.02
    when 'wallet' then 0.02 else 0 end, 2) as fee
) f
where b.n % ${PARTS} = ${k}
order by b.n;

insert into public.order_items (id, order_id, position, product_id, variant_id, product_name, variant_name, quantity,
  unit_price, line_total, created_at)
select gen_random_uuid(), i.order_id, i.position, i.product_id, i.variant_id, i.product_name, i.variant_name,
  i.quantity,
  i.unit_price, i.unit_price * i.quantity, i.created_at
from bulk_load.items i where i.n % ${PARTS} = ${k} order by i.created_at, i.position;

insert into public.order_status_history (order_id, from_status, to_status, actor, changed_at)
select b.id, lag(s.status) over (partition by b.id order by s.step), s.status,
  case when s.step = 1 or s.status = 'cancelled' then 'system' when s.status = 'paid' then 'payment_gateway'
    else 'seller' end,
  b.created_at + (s.step - 1) * interval '1 hour'
from bulk_load.orders b
cross join lateral unnest(case b.status::text
    ${paths}
  end::public.order_status[]) with ordinality s(status, step)
where b.n % ${PARTS} = ${k}
order by b.n, s.step;

${
    emails
      ? `
insert into public.email_outbox (id, order_id, kind, to_email, status, attempts, provider_id, sent_at, created_at,
  updated_at)
select gen_random_uuid(), b.id, k.kind, case k.kind when 'buyer' then 'buyer' || b.n || '@example.com' else s.owner_email end,
  'sent', 1, 'bulk-' || b.n || '-' || k.kind, b.created_at, b.created_at, b.created_at
from bulk_load.orders b join public.stores s on s.id = b.store_id
cross join (values ('buyer'), ('seller')) k(kind)
where b.n % ${PARTS} = ${k}
order by b.n, k.kind;
`
      : ""
  }

`;
  const finish = `
insert into public.order_counters as c (store_id, year, last_sequence)
select store_id, order_year, max(order_sequence) from bulk_load.orders group by 1, 2
on conflict (store_id, year) do update set last_sequence = excluded.last_sequence, updated_at = now();
`;
  return { stage, parts: [...Array(PARTS).keys()].map(part), finish };
}

/**
 * Adds the orders as the connection's role (the tables' owner): staged in one transaction, written by
 * {@linkcode PARTS} sessions at once (`db`'s pool needs that many connections to gain from it), then the
 * counters; then vacuums and analyzes the tables, as autovacuum would have over the months these orders took.
 */
export async function loadBulkOrders(db: SqlDatabase, options: BulkOrders): Promise<void> {
  const { stage, parts, finish } = bulkOrdersSql(options);
  await db.execTransaction(stage);
  try {
    await Promise.all(parts.map((part) => db.execTransaction(part)));
    await db.execTransaction(finish);
  } finally {
    await db.exec("drop schema if exists bulk_load cascade");
  }
  await db.exec(
    "vacuum analyze public.orders, public.order_items, public.order_status_history, public.email_outbox, " +
      "public.order_counters",
  );
}
