/**
 * The storefront client of create-order: the wire types, `createOrder`, and the payment calls
 * `startPayment` and `verifyPayment`. Plain TypeScript without
 * Deno-only APIs or dependencies: import `client/mod.ts` from Deno or a bundler, or the built
 * `client/dist/create_order_client.js` (`deno task client:build`) from a page without a build step.
 */
export * from "./order_types.ts";
export * from "./create_order.ts";
export * from "./payment_types.ts";
export * from "./payments.ts";
