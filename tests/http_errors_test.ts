import assert from "node:assert/strict";
import { ERROR_STATUS, internalError, OrderError } from "../supabase/functions/_shared/errors.ts";
import { renderError } from "../supabase/functions/_shared/http/http_errors.ts";
import { mapDatabaseError } from "../supabase/functions/_shared/orders/database_errors.ts";
import { corsOriginHeaders, corsPreflightHeaders } from "../supabase/functions/_shared/http/cors.ts";

Deno.test("ERROR_STATUS maps every contract code to its status", () => {
  assert.deepEqual(ERROR_STATUS, {
    INVALID_JSON: 400,
    VALIDATION_FAILED: 400,
    PRICE_MISMATCH: 400,
    VARIANT_REQUIRED: 400,
    PAYMENT_SIGNATURE_INVALID: 400,
    UNAUTHORIZED: 401,
    STORE_NOT_FOUND: 404,
    PRODUCT_NOT_FOUND: 404,
    VARIANT_NOT_FOUND: 404,
    ORDER_NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    REQUEST_TIMEOUT: 408,
    IDEMPOTENCY_KEY_IN_USE: 409,
    INVALID_TRANSITION: 409,
    OUT_OF_STOCK: 409,
    ORDER_NOT_PAYABLE: 409,
    PAYMENT_ORDER_MISMATCH: 409,
    PAYMENT_NOT_CAPTURED: 409,
    PAYLOAD_TOO_LARGE: 413,
    IDEMPOTENCY_KEY_REUSED: 422,
    RATE_LIMITED: 429,
    INTERNAL_ERROR: 500,
    PAYMENT_PROVIDER_ERROR: 502,
    PAYMENT_PROVIDER_NOT_CONFIGURED: 503,
  });
});

Deno.test("renderError() renders an OrderError with its code, message, details and headers", () => {
  const rendered = renderError(
    new OrderError("VALIDATION_FAILED", "bad", {
      details: [{ path: "x", message: "y" }],
      headers: { A: "b" },
    }),
  );
  assert.deepEqual(rendered, {
    status: 400,
    body: {
      success: false,
      error: { code: "VALIDATION_FAILED", message: "bad", details: [{ path: "x", message: "y" }] },
    },
    headers: { A: "b" },
  });
});

Deno.test("renderError() never echoes an unknown error", () => {
  const rendered = renderError(new Error('relation "orders" does not exist at line 3, key sb_secret_xyz'));
  assert.deepEqual(rendered, {
    status: 500,
    body: { success: false, error: { code: "INTERNAL_ERROR", message: "Internal error" } },
    headers: {},
  });
});

Deno.test("renderError() hides an internal error's own message too", () => {
  const rendered = renderError(internalError(new Error("connection refused"), "database down at 10.0.0.5"));
  assert.equal(rendered.body.error.message, "Internal error");
});

Deno.test("renderError() answers a payment provider's failure with its code and a fixed sentence, never the provider's words", () => {
  const rendered = renderError(
    new OrderError("PAYMENT_PROVIDER_ERROR", "Razorpay said: key rzp_test_x is wrong", {
      details: { description: "Authentication failed" },
      cause: new Error("401"),
    }),
  );
  assert.deepEqual(rendered, {
    status: 502,
    body: {
      success: false,
      error: {
        code: "PAYMENT_PROVIDER_ERROR",
        message: "The payment provider answered an error or did not answer in time; nothing was kept",
      },
    },
    headers: {},
  });
  const unconfigured = renderError(
    new OrderError("PAYMENT_PROVIDER_NOT_CONFIGURED", "RAZORPAY_KEY_ID unset"),
  );
  assert.equal(unconfigured.status, 503);
  assert.equal(
    unconfigured.body.error.message,
    "Payments through the gateway are not configured for this store",
  );
});

Deno.test("mapDatabaseError() maps our SQL functions' SQLSTATEs by code", async (t) => {
  const cases: [string, string, number][] = [
    ["OCS04", "STORE_NOT_FOUND", 404],
    ["OCP04", "PRODUCT_NOT_FOUND", 404],
    ["OCV04", "VARIANT_NOT_FOUND", 404],
    ["OCV00", "VARIANT_REQUIRED", 400],
    ["OC400", "PRICE_MISMATCH", 400],
    ["OCA03", "VALIDATION_FAILED", 400],
    ["OCI09", "IDEMPOTENCY_KEY_IN_USE", 409],
    ["OCI22", "IDEMPOTENCY_KEY_REUSED", 422],
    ["OCR29", "RATE_LIMITED", 429],
    ["OCO04", "ORDER_NOT_FOUND", 404],
    ["OCT01", "INVALID_TRANSITION", 409],
    ["OCN00", "VALIDATION_FAILED", 400],
    ["OCQ09", "OUT_OF_STOCK", 409],
    ["OCY09", "ORDER_NOT_PAYABLE", 409],
    ["OCA00", "INTERNAL_ERROR", 500],
    ["OCA01", "INTERNAL_ERROR", 500],
    ["OCT00", "INTERNAL_ERROR", 500],
    ["55P03", "INTERNAL_ERROR", 500],
    ["42501", "INTERNAL_ERROR", 500],
    ["PGRST202", "INTERNAL_ERROR", 500],
  ];
  for (const [sqlstate, code, status] of cases) {
    await t.step(`${sqlstate} -> ${code}`, () => {
      const error = mapDatabaseError({
        code: sqlstate,
        message: "STORE_NOT_FOUND: misleading text",
        details: null,
      });
      assert.equal(error.code, code);
      assert.equal(renderError(error).status, status);
    });
  }
});

Deno.test("mapDatabaseError() passes PRICE_MISMATCH, VARIANT_REQUIRED and OUT_OF_STOCK details and RATE_LIMITED Retry-After", () => {
  const mismatch = mapDatabaseError({ code: "OC400", details: '[{"index":0,"price":349}]' });
  assert.deepEqual(mismatch.details, [{ index: 0, price: 349 }]);
  const required = mapDatabaseError({ code: "OCV00", details: '{"index":1,"productId":"p"}' });
  assert.deepEqual(required.details, { index: 1, productId: "p" });
  const tooLarge = mapDatabaseError({ code: "OCA03", details: '{"maxFinalAmount":9999999999.99}' });
  assert.deepEqual(tooLarge.details, [{
    path: "items",
    message: "the order's final amount must be at most 9999999999.99",
  }]);
  const outOfStock = mapDatabaseError({
    code: "OCQ09",
    details: '[{"index":0,"productId":"p","variantId":null,"available":3}]',
  });
  assert.deepEqual(outOfStock.details, [{ index: 0, productId: "p", variantId: null, available: 3 }]);
  const limited = mapDatabaseError({ code: "OCR29", details: '{"retryAfterSeconds":1234}' });
  assert.deepEqual(limited.headers, { "Retry-After": "1234" });
});

Deno.test("mapDatabaseError() passes INVALID_TRANSITION's allowed moves and the SQL's field issues as details", () => {
  const move = mapDatabaseError({
    code: "OCT01",
    details: '{"from":"shipped","to":"cancelled","allowed":["delivered"],"extra":1}',
  });
  assert.deepEqual(move.details, { from: "shipped", to: "cancelled", allowed: ["delivered"] });
  assert.equal(mapDatabaseError({ code: "OCT01", details: null }).details, undefined);
  const issues = mapDatabaseError({ code: "OCN00", details: '[{"path":"note","message":"required"}]' });
  assert.deepEqual(issues.details, [{ path: "note", message: "required" }]);
  assert.equal(mapDatabaseError({ code: "OCN00", details: '{"sql":"select 1"}' }).details, undefined);
  const missing = mapDatabaseError({ code: "OCO04", details: '{"orderId":"o"}' });
  assert.deepEqual(missing.details, { orderId: "o" });
});

Deno.test("corsOriginHeaders() allows any origin with * and only listed ones otherwise, exposing our headers", () => {
  const expose = "x-request-id, retry-after, idempotent-replayed";
  assert.deepEqual(corsOriginHeaders("https://shop.example", ["*"]), {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": expose,
  });
  assert.deepEqual(corsOriginHeaders("https://shop.example", ["https://shop.example"]), {
    "Access-Control-Allow-Origin": "https://shop.example",
    Vary: "Origin",
    "Access-Control-Expose-Headers": expose,
  });
  assert.deepEqual(corsOriginHeaders("https://evil.example", ["https://shop.example"]), { Vary: "Origin" });
});

Deno.test("corsPreflightHeaders() allows POST and every header supabase-js sends, cached by the browser", () => {
  const headers = corsPreflightHeaders(null, ["*"]);
  assert.equal(headers["Access-Control-Allow-Methods"], "POST, OPTIONS");
  assert.deepEqual(headers["Access-Control-Allow-Headers"].split(", "), [
    "authorization",
    "x-client-info",
    "apikey",
    "content-type",
    "idempotency-key",
    "x-retry-count",
    "traceparent",
    "tracestate",
    "baggage",
  ]);
  assert.equal(headers["Access-Control-Max-Age"], "86400");
});

Deno.test("corsPreflightHeaders() allows the methods of the function it answers for", () => {
  assert.equal(corsPreflightHeaders(null, ["*"], ["GET"])["Access-Control-Allow-Methods"], "GET, OPTIONS");
});
