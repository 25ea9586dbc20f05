/** Direct create_order payloads, for tests of the SQL function itself (below the HTTP layer). */
import type { SqlDatabase } from "../../local/sql_database.ts";
import { STORE_BUSY_SQLSTATE } from "../../supabase/functions/_shared/orders/database_errors.ts";
import { calculateCheckoutFee } from "../../supabase/functions/_shared/orders/money.ts";
import { storeBusyPause } from "../../supabase/functions/_shared/orders/store_busy_retry.ts";
import type {
  CreateOrderPayload,
  CreateOrderResult,
} from "../../supabase/functions/_shared/orders/order_store.ts";
import type { TestStore } from "./catalogue.ts";

/** One create_order item: `quantity` units of a product (or one of its variants) at `unitPriceMinor`. */
export function payloadItem(
  productId: string,
  unitPriceMinor: number,
  options: { variantId?: string | null; quantity?: number } = {},
): CreateOrderPayload["items"][number] {
  return { productId, variantId: options.variantId ?? null, quantity: options.quantity ?? 1, unitPriceMinor };
}

/** A valid gateway/card payload of two products[0] (2 x 349.00) with the amounts computed as the function does. */
export function createOrderPayload(
  store: Pick<TestStore, "storeId" | "products">,
  overrides: Partial<CreateOrderPayload> = {},
): CreateOrderPayload {
  const items = overrides.items ?? [
    { productId: store.products[0].id, variantId: null, quantity: 2, unitPriceMinor: 34_900 },
  ];
  const totalMinor = items.reduce((sum, item) => sum + item.unitPriceMinor * item.quantity, 0);
  const feeMinor = calculateCheckoutFee(totalMinor, "gateway", "card");
  return {
    storeId: store.storeId,
    orderedAt: new Date().toISOString(),
    buyer: { email: "asha@example.com", name: "Asha Rao", phone: "+919876543210" },
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
    clientIp: "203.0.113.7",
    buyerUserId: null,
    items,
    totalMinor,
    feeMinor,
    finalMinor: totalMinor + feeMinor,
    idempotency: null,
    rateLimits: { ipLimit: 0, ipWindowSeconds: 3600, emailLimit: 0, emailWindowSeconds: 3600 },
    ...overrides,
  };
}

/** What the function's database adapter sends: the payload and, optionally, its absolute deadline. */
export type CreateOrderCall = CreateOrderPayload & { deadline?: string };

/** Calls create_order as service_role, as the function does through PostgREST. */
export async function callCreateOrder(
  db: SqlDatabase,
  payload: CreateOrderCall,
): Promise<CreateOrderResult> {
  const rows = await db.asRole(
    "service_role",
    (session) =>
      session.query<{ result: CreateOrderResult }>("select public.create_order($1::text::jsonb) as result", [
        JSON.stringify(payload),
      ]),
  );
  const result = rows[0].result;
  return typeof result === "string" ? JSON.parse(result) : result;
}

/**
 * {@linkcode callCreateOrder} as create-order's adapter makes it: a call refused with STORE_BUSY (OCW29, its
 * store's waiter slots taken) is made again after the adapter's pause (store_busy_retry.ts).
 */
export async function callCreateOrderAsTheAdapter(
  db: SqlDatabase,
  payload: CreateOrderCall,
): Promise<CreateOrderResult> {
  for (let attempt = 1;; attempt++) {
    try {
      return await callCreateOrder(db, payload);
    } catch (error) {
      if ((error as { code?: string }).code !== STORE_BUSY_SQLSTATE) throw error;
      await new Promise((resolve) => setTimeout(resolve, storeBusyPause(attempt, Math.random)));
    }
  }
}

/** The SQLSTATE a create_order call fails with. */
export async function createOrderFailure(
  db: SqlDatabase,
  payload: CreateOrderCall,
): Promise<{ code: string; detail?: string }> {
  try {
    await callCreateOrder(db, payload);
  } catch (error) {
    const { code, detail } = error as { code: string; detail?: string };
    return { code, detail };
  }
  throw new Error("create_order succeeded");
}

/** {@linkcode storeRowCounts} of a store with no order. */
export const NO_ROWS = { orders: 0, items: 0, emails: 0, history: 0, counters: 0, idempotency: 0 } as const;

/** {@linkcode storeRowCounts} of a store with one single-item order (without an idempotency key). */
export const ONE_ORDER_ROWS = {
  ...NO_ROWS,
  orders: 1,
  items: 1,
  emails: 2,
  history: 1,
  counters: 1,
} as const;

/** How many rows each order table holds for a store. */
export async function storeRowCounts(db: SqlDatabase, storeId: string): Promise<Record<string, number>> {
  const [row] = await db.query<Record<string, string | number>>(
    `select
      (select count(*) from public.orders where store_id = $1) as orders,
      (select count(*) from public.order_items i join public.orders o on o.id = i.order_id where o.store_id = $1) as items,
      (select count(*) from public.email_outbox e join public.orders o on o.id = e.order_id where o.store_id = $1) as emails,
      (select count(*) from public.order_status_history h join public.orders o on o.id = h.order_id where o.store_id = $1) as history,
      (select count(*) from public.order_counters where store_id = $1) as counters,
      (select count(*) from public.idempotency_keys where store_id = $1) as idempotency`,
    [storeId],
  );
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)]));
}
