/**
 * The client's wire types (`client/order_types.ts`, plain TypeScript without zod) say what the functions'
 * own schemas say: the request body is the create-order schema's input, the answer the documented one,
 * and the error codes the contract's. The type checks fail `deno check` (and so this file) on a drift.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import {
  CREATE_ORDER_ERROR_CODES,
  type CreatedOrder,
  type CreateOrderBody,
  ERROR_CODES,
  type ErrorCode,
  type OrderStatus,
  START_PAYMENT_ERROR_CODES,
  type StartedPayment,
  type StartPaymentBody,
  type VerifiedPayment,
  VERIFY_PAYMENT_ERROR_CODES,
  type VerifyPaymentBody,
} from "../client/mod.ts";
import type { StartPaymentRequestSchema } from "../supabase/functions/start-payment/request_schema.ts";
import type { VerifyPaymentRequestSchema } from "../supabase/functions/verify-payment/request_schema.ts";
import { ERROR_STATUS, type ErrorCode as ServerErrorCode } from "../supabase/functions/_shared/errors.ts";
import type { OrderStatus as ServerOrderStatus } from "../supabase/functions/_shared/orders/order_status.ts";
import type { CreateOrderRequestSchema } from "../supabase/functions/create-order/request_schema.ts";
import type {
  CreateOrderResponse,
  StartPaymentResponse,
  VerifyPaymentResponse,
} from "../openapi/response_schemas.ts";
import { FUNCTIONS } from "../openapi/function_descriptions.ts";

/** `true` only when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const _bodyIsTheSchemaInput: Same<CreateOrderBody, z.input<typeof CreateOrderRequestSchema>> = true;
const _answerIsTheDocumentedOne: Same<CreatedOrder, z.output<typeof CreateOrderResponse>> = true;
const _codesAreTheContracts: Same<ErrorCode, ServerErrorCode> = true;
const _statusesAreTheLifecycles: Same<OrderStatus, ServerOrderStatus> = true;
const _paymentBodiesAreTheSchemas: [
  Same<StartPaymentBody, z.input<typeof StartPaymentRequestSchema>>,
  Same<VerifyPaymentBody, z.input<typeof VerifyPaymentRequestSchema>>,
] = [true, true];
const _paymentAnswersAreTheDocumentedOnes: [
  Same<StartedPayment, z.output<typeof StartPaymentResponse>>,
  Same<VerifiedPayment, z.output<typeof VerifyPaymentResponse>>,
] = [true, true];

Deno.test("client ERROR_CODES are the contract's codes, in its order", () => {
  assert.deepEqual([...ERROR_CODES], Object.keys(ERROR_STATUS));
  assert.ok(
    _bodyIsTheSchemaInput && _answerIsTheDocumentedOne && _codesAreTheContracts && _statusesAreTheLifecycles,
  );
});

Deno.test("client CREATE_ORDER_ERROR_CODES are the codes openapi.json lists for create-order", () => {
  const createOrder = FUNCTIONS.find((fn) => fn.path === "/create-order")!;
  assert.deepEqual([...CREATE_ORDER_ERROR_CODES].sort(), [...createOrder.errors].sort());
});

Deno.test("client START_PAYMENT_ERROR_CODES and VERIFY_PAYMENT_ERROR_CODES are the codes openapi.json lists for them", () => {
  const codes = (path: string) => [...FUNCTIONS.find((fn) => fn.path === path)!.errors].sort();
  assert.deepEqual([...START_PAYMENT_ERROR_CODES].sort(), codes("/start-payment"));
  assert.deepEqual([...VERIFY_PAYMENT_ERROR_CODES].sort(), codes("/verify-payment"));
  assert.ok(_paymentBodiesAreTheSchemas.every(Boolean) && _paymentAnswersAreTheDocumentedOnes.every(Boolean));
});
