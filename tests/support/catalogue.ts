/**
 * Builders for catalogue rows. Each test creates its own store (fresh ids), so tests sharing one
 * database never see each other's orders or counters.
 */
import type { SqlDatabase } from "../../local/sql_database.ts";

/** A store made for one test, with its products and variants. */
export interface TestStore {
  storeId: string;
  ownerEmail: string;
  /** Active products: [0] 349.00, [1] 199.50, [2] 250.00 (with variants). */
  products: { id: string; name: string; price: number }[];
  /** Variants of products[2]: [0] price null (sells at 250.00), [1] 299.00. */
  variants: { id: string; name: string; price: number }[];
  inactiveProductId: string;
  inactiveVariantId: string;
}

/** Inserts an active store with three products (one with two variants) and inactive extras. */
export async function createTestStore(
  db: SqlDatabase,
  options: { active?: boolean; currency?: string; name?: string } = {},
): Promise<TestStore> {
  const storeId = crypto.randomUUID();
  const ownerEmail = `owner-${storeId.slice(0, 8)}@example.com`;
  const products = [
    { id: crypto.randomUUID(), name: "Assam Tea 250 g", price: 349 },
    { id: crypto.randomUUID(), name: "Masala Chai Mix 100 g", price: 199.5 },
    { id: crypto.randomUUID(), name: "Steel Tumbler", price: 250 },
  ];
  const variants = [
    { id: crypto.randomUUID(), name: "Small 200 ml", price: 250 },
    { id: crypto.randomUUID(), name: "Large 400 ml", price: 299 },
  ];
  const inactiveProductId = crypto.randomUUID();
  const inactiveVariantId = crypto.randomUUID();
  await db.query(
    `insert into public.stores (id, name, owner_email, currency, is_active) values ($1, $2, $3, $4, $5)`,
    [storeId, options.name ?? "Test Store", ownerEmail, options.currency ?? "INR", options.active ?? true],
  );
  await db.query(
    `insert into public.products (id, store_id, name, price, is_active) values
      ($1, $7, $2, 349.00, true), ($3, $7, $4, 199.50, true), ($5, $7, $6, 250.00, true),
      ($8, $7, 'Discontinued', 10.00, false)`,
    [
      products[0].id,
      products[0].name,
      products[1].id,
      products[1].name,
      products[2].id,
      products[2].name,
      storeId,
      inactiveProductId,
    ],
  );
  await db.query(
    `insert into public.product_variants (id, product_id, name, price, is_active) values
      ($1, $4, $2, null, true), ($3, $4, $5, 299.00, true), ($6, $4, 'Retired', 1.00, false)`,
    [variants[0].id, variants[0].name, variants[1].id, products[2].id, variants[1].name, inactiveVariantId],
  );
  return { storeId, ownerEmail, products, variants, inactiveProductId, inactiveVariantId };
}
