/**
 * The bench catalogue (10 stores x 20 products, each product with one variant, which an order must name) and the orders posted
 * against it: the HTTP body a storefront sends, and the very `create_order` payload the function builds
 * from it, so pgbench and the service create the same orders.
 */
import { priceOrder } from "../supabase/functions/_shared/orders/money.ts";
import type { CreateOrderPayload } from "../supabase/functions/_shared/orders/order_store.ts";
import { parseCreateOrderRequest } from "../supabase/functions/create-order/request_schema.ts";

/** Stores and products per store. */
export const STORES = 10;
export const PRODUCTS_PER_STORE = 20;
/** Distinct orders per store (they differ in products, quantities and payment method). */
export const ORDERS_PER_STORE = 8;

const _hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/** The fixed id of store `s` (0-based). */
export const storeId = (s: number) => `${_hex(s + 1, 8)}-0000-4000-8000-000000000000`;
/** The fixed id of product `p` of store `s`. */
export const productId = (s: number, p: number) =>
  `${_hex(s + 1, 8)}-${_hex(p + 1, 4)}-4000-8000-000000000001`;
/** The fixed id of the one variant of product `p` of store `s`. */
export const variantId = (s: number, p: number) =>
  `${_hex(s + 1, 8)}-${_hex(p + 1, 4)}-4000-8000-000000000002`;
/** The product's price in rupees: 100.00 to 290.50. */
const _productPrice = (p: number) => 100 + p * 10 + (p % 2) * 0.5;
/** Odd products' variants cost 25 more; even ones sell at the product's price (price null). */
const _variantPrice = (p: number) => (p % 2 === 1 ? _productPrice(p) + 25 : null);

/** SQL that inserts the catalogue (plain statements: no parameters, one script). */
export function catalogueSql(): string {
  const stores: string[] = [];
  const products: string[] = [];
  const variants: string[] = [];
  for (let s = 0; s < STORES; s++) {
    stores.push(`('${storeId(s)}', 'Bench Store ${s + 1}', 'owner${s + 1}@example.com', 'INR')`);
    for (let p = 0; p < PRODUCTS_PER_STORE; p++) {
      products.push(
        `('${productId(s, p)}', '${storeId(s)}', 'Product ${p + 1}', ${_productPrice(p).toFixed(2)})`,
      );
      const vp = _variantPrice(p);
      variants.push(
        `('${variantId(s, p)}', '${productId(s, p)}', 'Size L', ${vp === null ? "null" : vp.toFixed(2)})`,
      );
    }
  }
  return `insert into public.stores (id, name, owner_email, currency) values ${stores.join(",\n")};
insert into public.products (id, store_id, name, price) values ${products.join(",\n")};
insert into public.product_variants (id, product_id, name, price) values ${variants.join(",\n")};
analyze;`;
}

/** Order `k` of store `s` as the storefront posts it. */
export function orderBody(s: number, k: number): Record<string, unknown> {
  const first = (k * 3) % PRODUCTS_PER_STORE;
  const second = (k * 3 + 7) % PRODUCTS_PER_STORE;
  const upiDirect = k % 4 === 3;
  return {
    storeId: storeId(s),
    buyerEmail: `buyer${k}@example.com`,
    buyerName: `Buyer ${k}`,
    buyerPhone: "+91 98765 43210",
    shippingAddress: {
      line1: "12 MG Road",
      city: "Pune",
      state: "Maharashtra",
      postalCode: "411001",
      country: "IN",
    },
    items: [
      {
        productId: productId(s, first),
        variantId: variantId(s, first),
        quantity: 1 + (k % 3),
        price: _variantPrice(first) ?? _productPrice(first),
      },
      {
        productId: productId(s, second),
        variantId: variantId(s, second),
        quantity: 1,
        price: _variantPrice(second) ?? _productPrice(second),
      },
    ],
    ...(upiDirect
      ? { paymentMethod: "upi_direct", paymentProofUrl: `https://pay.example.com/proof/${k}` }
      : { paymentMethod: "gateway", gatewayMethod: (["card", "upi", "wallet"] as const)[k % 3] }),
  };
}

/** The payload the function sends to create_order for {@linkcode orderBody}(s, k), rate limits off. */
export function orderPayload(s: number, k: number): Omit<CreateOrderPayload, "orderedAt"> {
  const order = parseCreateOrderRequest(orderBody(s, k));
  return {
    storeId: order.storeId,
    buyer: { email: order.buyerEmail, name: order.buyerName, phone: order.buyerPhone },
    shippingAddress: order.shippingAddress,
    paymentMethod: order.paymentMethod,
    gatewayMethod: order.gatewayMethod,
    paymentProofUrl: order.paymentProofUrl,
    buyerUserId: null,
    clientIp: "127.0.0.1",
    items: order.items,
    ...priceOrder(order.items, order.paymentMethod, order.gatewayMethod),
    idempotency: null,
    rateLimits: { ipLimit: 0, ipWindowSeconds: 3600, emailLimit: 0, emailWindowSeconds: 3600 },
  };
}

/** The stores a run posts to: all ten (spread) or the first only (one hot counter row). */
export type Spread = "10 stores" | "1 store";

/** The (store, order) pairs of a spread. */
export function ordersOf(spread: Spread): [number, number][] {
  const stores = spread === "1 store" ? [0] : [...Array(STORES).keys()];
  return stores.flatMap((s) => [...Array(ORDERS_PER_STORE).keys()].map((k): [number, number] => [s, k]));
}
