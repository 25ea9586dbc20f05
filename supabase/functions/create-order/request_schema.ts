/**
 * The order-creation request: spec part 2 with the contract's rules. Strict: an unknown field anywhere
 * is refused, so a typo never silently drops data. Everything after `parseCreateOrderRequest` sees only
 * the parsed type.
 */
import { z } from "../_shared/zod.ts";
import { type FieldIssue, OrderError } from "../_shared/errors.ts";
import { EMAIL_ADDRESS_PATTERN, MAX_EMAIL_LENGTH } from "../_shared/orders/email_address.ts";
import { isPrice, submittedPriceMinor } from "../_shared/orders/money.ts";
import { normalisePhone, PHONE_NUMBER_PATTERN } from "../_shared/orders/phone_number.ts";
import {
  checkFreeText,
  checkHttpUrl,
  checkOptionalFreeText,
  type FreeTextResult,
} from "../_shared/orders/text_rules.ts";
import { COUNTRY_CODE_PATTERN, freeTextKeywords, httpUrlKeywords } from "../_shared/orders/wire_patterns.ts";

/** A type-error message that says "is required" when the field is missing. */
function _expected(field: string, what: string) {
  return (issue: { input: unknown }) =>
    issue.input === undefined ? `${field} is required` : `${field} must be ${what}`;
}

/** A string field checked by one of the text rule's functions, reported at the field's path. */
function _ruled<T>(field: string, check: (raw: string) => FreeTextResult<T>) {
  return z.string({ error: _expected(field, "a string") }).transform((raw, ctx) => {
    const result = check(raw);
    if (result.ok) return result.text;
    ctx.addIssue({ code: "custom", message: `${field} ${result.problem}` });
    return z.NEVER;
  });
}

/** A free-text field under the one text rule (text_rules.ts): stored trimmed and NFC-normalised. */
const _text = (field: string, max: number) =>
  _ruled(field, (raw) => checkFreeText(raw, max)).meta({
    description: _textRule(1, max),
    ...freeTextKeywords(max),
  });

/** The text rule in a sentence, for the API description. */
function _textRule(min: number, max: number): string {
  return `${min}–${max} characters once trimmed (NFC); no control or bidi characters, not only invisible ones`;
}

/** An optional free-text field: absent, null or only spaces is none; anything else follows the text rule. */
const _optionalText = (field: string, max: number) =>
  _ruled(field, (raw) => checkOptionalFreeText(raw, max)).meta(freeTextKeywords(max)).nullish()
    .transform((value) => value ?? null)
    .meta({ description: `optional; absent, null or only spaces is none; else ${_textRule(1, max)}` });

/** An absolute http(s) URL, as the parsed URL's serialisation: no raw CR, LF or space survives. */
const _httpUrl = (field: string, max: number) =>
  _ruled(field, (raw) => checkHttpUrl(raw, max)).meta({
    description: `an absolute http(s) URL without user name or password, at most ${max} characters as ` +
      "serialised (a URL without a path gains its /)",
    ...httpUrlKeywords(max),
  });

const uuid = (field: string) => z.guid({ error: _expected(field, "a UUID") });

const ShippingAddressSchema = z.strictObject({
  line1: _text("line1", 200),
  line2: _optionalText("line2", 200),
  city: _text("city", 200),
  state: _text("state", 200),
  postalCode: _text("postalCode", 20),
  // ASCII letters only before upper-casing: "ıN" and "ſe" would become IN and SE
  country: z.string({ error: _expected("country", "a string") }).trim().regex(COUNTRY_CODE_PATTERN, {
    error: (issue) =>
      `country must be an assigned ISO 3166-1 alpha-2 code: got ${JSON.stringify(issue.input)}`,
  }).transform((code) => code.toUpperCase())
    .meta({ description: "an assigned ISO 3166-1 alpha-2 code, any letter case (IN)", examples: ["IN"] }),
}, { error: _expected("shippingAddress", "an object") });

const _priceError = (issue: { input: unknown }) =>
  `price must be a number >= 0 with at most 2 decimals: got ${JSON.stringify(issue.input)}`;

const ItemSchema = z.strictObject({
  productId: uuid("productId"),
  variantId: uuid("variantId").nullish().transform((value) => value ?? null),
  quantity: z.number({ error: _expected("quantity", "a number") }).int({
    error: "quantity must be an integer",
  })
    .min(1, { error: "quantity must be an integer from 1 to 10000" })
    .max(10_000, { error: "quantity must be an integer from 1 to 10000" }),
  // no upper limit: a price no catalogue row can hold is the catalogue's PRICE_MISMATCH, after any 404.
  // "at most 2 decimals" is JSON Schema's multipleOf 0.01, said in meta: zod's multipleOf check computes
  // on the number's text and refuses multiples above 1e21 (Number.MAX_VALUE), which isPrice takes
  price: z.number({ error: _expected("price", "a number") }).min(0, { error: _priceError, abort: true })
    .refine(isPrice, { error: _priceError }).meta({
      description: "the unit price shown to the buyer, a decimal with at most 2 decimals (349.5 for " +
        "₹349.50); it must equal the catalogue's current price (the variant's, else the product's)",
      multipleOf: 0.01,
    }),
}, { error: "each item must be an object" });

const _PHONE_RULE = "buyerPhone must be + and the country code (not 0), then 7 to 15 digits in all";

/**
 * What the refinement below checks, as JSON Schema: upi_direct needs a paymentProofUrl and takes no
 * gatewayMethod; gateway may name one.
 */
const _PAYMENT_METHOD_RULE = {
  oneOf: [
    {
      title: "upi_direct",
      properties: {
        paymentMethod: { const: "upi_direct" },
        paymentProofUrl: { type: "string" },
        gatewayMethod: { type: "null" },
      },
      required: ["paymentMethod", "paymentProofUrl"],
    },
    { title: "gateway", properties: { paymentMethod: { const: "gateway" } }, required: ["paymentMethod"] },
  ],
};

/** The request body schema (zod); `parseCreateOrderRequest` is the way to use it. */
export const CreateOrderRequestSchema = z.strictObject({
  storeId: uuid("storeId"),
  buyerEmail: z.string({ error: _expected("buyerEmail", "a string") }).trim()
    .max(MAX_EMAIL_LENGTH, {
      error: `buyerEmail must be at most ${MAX_EMAIL_LENGTH} characters`,
      abort: true,
    })
    .regex(EMAIL_ADDRESS_PATTERN, { error: "buyerEmail must be an e-mail address like name@example.com" })
    .meta({
      description: "a dot-atom local part of at most 64 characters, @, a domain of DNS labels (IDN as " +
        "xn--); surrounding spaces are trimmed",
      examples: ["asha@example.com"],
    }),
  buyerName: _text("buyerName", 200),
  buyerPhone: z.string({ error: _expected("buyerPhone", "a string") }).max(40, {
    error: "buyerPhone is too long",
    abort: true,
  }).regex(PHONE_NUMBER_PATTERN, { error: _PHONE_RULE }).transform((phone, ctx) => {
    const normalised = normalisePhone(phone);
    if (normalised) return normalised;
    ctx.addIssue({ code: "custom", message: _PHONE_RULE });
    return z.NEVER;
  }).meta({
    description: "+ and 7–15 digits, the first not 0, once spaces (any Unicode space, U+00A0 included), " +
      "hyphens, dots and parentheses are removed",
    examples: ["+91 98765 43210"],
  }),
  shippingAddress: ShippingAddressSchema,
  items: z.array(ItemSchema, { error: _expected("items", "a list") })
    .min(1, { error: "items must hold at least 1 item" })
    .max(100, { error: "items must hold at most 100 items" }),
  paymentMethod: z.enum(["upi_direct", "gateway"], {
    error: _expected("paymentMethod", "upi_direct or gateway"),
  }),
  // null is the same as leaving it out
  gatewayMethod: z.enum(["card", "upi", "wallet"], { error: "gatewayMethod must be card, upi or wallet" })
    .nullish().meta({
      description: "only with gateway (default card): the fee's rate, 2.5 % card, 2 % upi or wallet",
    }),
  paymentProofUrl: _httpUrl("paymentProofUrl", 2048).nullish().meta({
    description:
      "required for upi_direct: where the buyer's transfer can be checked; an absolute http(s) URL",
  }),
}, { error: "the body must be a JSON object" })
  .superRefine((order, ctx) => {
    if (order.paymentMethod === "upi_direct" && !order.paymentProofUrl) {
      ctx.addIssue({
        code: "custom",
        path: ["paymentProofUrl"],
        message: "paymentProofUrl is required for upi_direct",
      });
    }
    if (order.paymentMethod !== "gateway" && order.gatewayMethod != null) {
      ctx.addIssue({
        code: "custom",
        path: ["gatewayMethod"],
        message: "gatewayMethod is only allowed with gateway",
      });
    }
  }).meta(_PAYMENT_METHOD_RULE);

/** A validated order request, prices in minor units. */
export interface CreateOrderRequest {
  storeId: string;
  buyerEmail: string;
  buyerName: string;
  /** E.164: + and digits only. */
  buyerPhone: string;
  shippingAddress: {
    line1: string;
    line2: string | null;
    city: string;
    state: string;
    postalCode: string;
    /** Upper case. */
    country: string;
  };
  /**
   * `unitPriceMinor`: the price in minor units, or ABOVE_CATALOGUE_MINOR when it is above numeric(12,2);
   * `submittedPrice`: the price as the request carried it, for PRICE_MISMATCH's details.
   */
  items: {
    productId: string;
    variantId: string | null;
    quantity: number;
    unitPriceMinor: number;
    submittedPrice: number;
  }[];
  paymentMethod: "upi_direct" | "gateway";
  /** Set for gateway (default card), null for upi_direct. */
  gatewayMethod: "card" | "upi" | "wallet" | null;
  paymentProofUrl: string | null;
}

/** Parses a JSON value into a {@linkcode CreateOrderRequest}, or throws VALIDATION_FAILED with every issue. */
export function parseCreateOrderRequest(body: unknown): CreateOrderRequest {
  const result = CreateOrderRequestSchema.safeParse(body);
  if (!result.success) {
    throw new OrderError("VALIDATION_FAILED", "The request body is invalid", {
      details: result.error.issues.flatMap((issue): FieldIssue[] =>
        issue.code === "unrecognized_keys"
          ? issue.keys.map((key) => ({ path: [...issue.path, key].join("."), message: "unknown field" }))
          : [{ path: issue.path.join("."), message: issue.message }]
      ),
    });
  }
  const order = result.data;
  return {
    storeId: order.storeId.toLowerCase(),
    buyerEmail: order.buyerEmail,
    buyerName: order.buyerName,
    buyerPhone: order.buyerPhone,
    shippingAddress: order.shippingAddress,
    items: order.items.map((item) => ({
      productId: item.productId.toLowerCase(),
      variantId: item.variantId?.toLowerCase() ?? null,
      quantity: item.quantity,
      unitPriceMinor: submittedPriceMinor(item.price),
      submittedPrice: item.price,
    })),
    paymentMethod: order.paymentMethod,
    gatewayMethod: order.paymentMethod === "gateway" ? order.gatewayMethod ?? "card" : null,
    paymentProofUrl: order.paymentProofUrl ?? null,
  };
}
