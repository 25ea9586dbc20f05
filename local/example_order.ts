/**
 * The order `deno task dev` prints as its curl and the README shows: two Assam Tea and a large Steel Tumbler
 * from the seed's store, paid through the gateway by UPI (997.00 + 2 % = 1016.94).
 */
export const SEED_EXAMPLE_ORDER = {
  storeId: "11111111-1111-4111-8111-111111111111",
  buyerEmail: "asha@example.com",
  buyerName: "Asha Rao",
  buyerPhone: "+91 98765 43210",
  shippingAddress: {
    line1: "12 MG Road",
    city: "Pune",
    state: "Maharashtra",
    postalCode: "411001",
    country: "IN",
  },
  items: [
    { productId: "aaaaaaaa-0001-4000-8000-000000000001", quantity: 2, price: 349 },
    {
      productId: "aaaaaaaa-0003-4000-8000-000000000003",
      variantId: "bbbbbbbb-0002-4000-8000-000000000002",
      quantity: 1,
      price: 299,
    },
  ],
  paymentMethod: "gateway",
  gatewayMethod: "upi",
} as const;
