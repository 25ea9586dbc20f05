/**
 * The storefront client of create-order: the wire types, `createOrder`, and the payment calls
 * `startPayment` and `verifyPayment`, and for a checkout page `quoteOrder` (the amount to pay before the
 * order is placed) and `indianPhoneNumber`. Plain TypeScript without Deno-only APIs or dependencies: import
 * `client/mod.ts` from Deno or a bundler; from an npm project the package `create-order-client`
 * (`client/package.json`, installed by path), whose `dist/` `deno task client:build` writes:
 * `create_order_client.js`, also for pages without a build step, and its `.d.ts`.
 */
export * from "./order_types.ts";
export * from "./create_order.ts";
export * from "./payment_types.ts";
export * from "./payments.ts";
export * from "./order_quote.ts";
export * from "./indian_phone.ts";
