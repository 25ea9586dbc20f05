/** Builders for create-order request bodies. */
import type { TestStore } from "./catalogue.ts";

/** A valid request body shape (loosely typed, so tests can break it on purpose). */
export type OrderBody = Record<string, unknown>;

/** A valid upi_direct order of two Assam Tea (2 x 349.00) for `store`; overrides replace top-level fields. */
export function orderBody(
  store: Pick<TestStore, "storeId" | "products">,
  overrides: OrderBody = {},
): OrderBody {
  return {
    storeId: store.storeId,
    buyerEmail: "asha@example.com",
    buyerName: "Asha Rao",
    buyerPhone: "+91 98765 43210",
    shippingAddress: {
      line1: "12 MG Road",
      line2: "Flat 4B",
      city: "Pune",
      state: "Maharashtra",
      postalCode: "411001",
      country: "IN",
    },
    items: [{ productId: store.products[0].id, quantity: 2, price: store.products[0].price }],
    paymentMethod: "upi_direct",
    paymentProofUrl: "https://proofs.example.com/upi/123.png",
    ...overrides,
  };
}

/** The same body as a gateway order paid by `gatewayMethod` (default card). */
export function gatewayOrderBody(
  store: Pick<TestStore, "storeId" | "products">,
  gatewayMethod?: "card" | "upi" | "wallet",
  overrides: OrderBody = {},
): OrderBody {
  const { paymentProofUrl: _proof, ...body } = orderBody(store, overrides);
  return { ...body, paymentMethod: "gateway", ...(gatewayMethod ? { gatewayMethod } : {}), ...overrides };
}
