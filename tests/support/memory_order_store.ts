/**
 * An in-memory OrderStore for driving the handler without a database (fuzzing): it checks a request
 * against a small fixed catalogue as create_order does (store, product, variant, variant required, price,
 * the total's size, sums) and records every order it stores.
 */
import { OrderError } from "../../supabase/functions/_shared/errors.ts";
import { fromMinorUnits, MAX_AMOUNT_MINOR } from "../../supabase/functions/_shared/orders/money.ts";
import type {
  CreateOrderOptions,
  CreateOrderPayload,
  CreateOrderResult,
  OrderStore,
} from "../../supabase/functions/_shared/orders/order_store.ts";

/** A catalogue product: its price in minor units, and its variants (null price: the product's). */
export interface MemoryProduct {
  id: string;
  priceMinor: number;
  variants: { id: string; priceMinor: number | null }[];
}

/** The store and what it was asked to write. */
export interface MemoryOrderStore extends OrderStore {
  storeId: string;
  products: MemoryProduct[];
  /** Every payload that became an order. */
  written: CreateOrderPayload[];
  /** The deadline of every call. */
  deadlines: Date[];
  /** Every call, stored or refused. */
  calls: number;
}

/** A memory store selling `products` in one store with id `storeId`. */
export function memoryOrderStore(storeId: string, products: MemoryProduct[]): MemoryOrderStore {
  const written: CreateOrderPayload[] = [];
  const self: MemoryOrderStore = {
    storeId,
    products,
    written,
    deadlines: [],
    calls: 0,
    createOrder(payload: CreateOrderPayload, { deadline }: CreateOrderOptions): Promise<CreateOrderResult> {
      self.calls++;
      self.deadlines.push(deadline);
      if (payload.storeId !== storeId) {
        return Promise.reject(new OrderError("STORE_NOT_FOUND", "No active store with this storeId"));
      }
      let totalMinor = 0;
      const mismatches: unknown[] = [];
      let variantRequired: { index: number; productId: string } | undefined;
      for (const [index, item] of payload.items.entries()) {
        const product = products.find((p) => p.id === item.productId);
        if (!product) return Promise.reject(new OrderError("PRODUCT_NOT_FOUND", "unknown product"));
        let priceMinor = product.priceMinor;
        if (item.variantId !== null) {
          const variant = product.variants.find((v) => v.id === item.variantId);
          if (!variant) return Promise.reject(new OrderError("VARIANT_NOT_FOUND", "unknown variant"));
          priceMinor = variant.priceMinor ?? priceMinor;
        } else if (product.variants.length > 0) {
          variantRequired ??= { index, productId: product.id };
        }
        if (priceMinor !== item.unitPriceMinor) mismatches.push({ index, price: fromMinorUnits(priceMinor) });
        totalMinor += priceMinor * item.quantity;
      }
      if (variantRequired) {
        return Promise.reject(
          new OrderError("VARIANT_REQUIRED", "choose a variant", { details: variantRequired }),
        );
      }
      if (mismatches.length > 0) {
        return Promise.reject(new OrderError("PRICE_MISMATCH", "price differs", { details: mismatches }));
      }
      if (payload.finalMinor > MAX_AMOUNT_MINOR) {
        return Promise.reject(
          new OrderError("VALIDATION_FAILED", "too large", { details: [{ path: "items" }] }),
        );
      }
      if (totalMinor !== payload.totalMinor || payload.finalMinor !== totalMinor + payload.feeMinor) {
        return Promise.reject(new Error("AMOUNT_MISMATCH: the handler's sums disagree with the catalogue"));
      }
      written.push(payload);
      const orderId = crypto.randomUUID();
      return Promise.resolve({
        replayed: false,
        emails: [],
        response: {
          success: true,
          orderId,
          orderNumber: `ORD-2026-${String(written.length).padStart(6, "0")}`,
          totalAmount: fromMinorUnits(payload.totalMinor),
          checkoutFee: fromMinorUnits(payload.feeMinor),
          finalAmount: fromMinorUnits(payload.finalMinor),
          status: "payment_pending",
        },
      });
    },
  };
  return self;
}
