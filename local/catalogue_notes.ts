/**
 * What catalogue:import tells the seller beside its counts: the same note store:add gives for an inactive
 * store (its orders are refused), and a price of 0.00, which a storefront may well mean (a free sample)
 * but which no gateway payment can carry on its own: Razorpay takes at least 1.00 (100 subunits).
 */
import { formatMoney } from "../supabase/functions/_shared/email/money_format.ts";
import { GATEWAY_MINIMUM_MINOR } from "../supabase/functions/_shared/payments/payment_orders.ts";
import type { CatalogueFile } from "./catalogue_file.ts";
import type { SqlSession } from "./sql_database.ts";

/** The store an import writes to. */
export interface ImportStore {
  id: string;
  name: string;
  currency: string;
  isActive: boolean;
}

/** The store with the id `storeId` (a UUID), or null. */
export async function findStore(db: SqlSession, storeId: string): Promise<ImportStore | null> {
  const rows = await db.query<{ id: string; name: string; currency: string; is_active: boolean }>(
    "select id::text, name, currency, is_active from public.stores where id = $1::uuid",
    [storeId],
  );
  return rows.length === 0
    ? null
    : { id: rows[0].id, name: rows[0].name, currency: rows[0].currency, isActive: rows[0].is_active };
}

/** The words store:add uses for an inactive store, after its facts. */
export const INACTIVE_STORE_NOTE = "inactive: its orders are refused";

/** The notes for importing `file` into `store`, in line order. Pure. */
export function catalogueNotes(store: ImportStore, file: CatalogueFile): string[] {
  const notes = store.isActive ? [] : [
    `the store ${JSON.stringify(store.name)} is ${INACTIVE_STORE_NOTE} (404 STORE_NOT_FOUND) until it is ` +
    `made active: update public.stores set is_active = true where id = '${store.id}';`,
  ];
  const minimum = formatMoney(GATEWAY_MINIMUM_MINOR, store.currency);
  const free = [
    ...file.products.filter((p) => p.priceMinor === 0).map((p) => ({ line: p.line, column: "price" })),
    ...file.variants.filter((v) => v.priceMinor === 0).map((v) => ({
      line: v.line,
      column: "variant_price",
    })),
  ].sort((a, b) => a.line - b.line);
  for (const { line, column } of free) {
    notes.push(
      `line ${line}, ${column}: 0.00 gives it away; a gateway order of only such items is below Razorpay's ` +
        `minimum of ${minimum} and cannot be paid (start-payment answers 409 ORDER_NOT_PAYABLE)`,
    );
  }
  return notes;
}
