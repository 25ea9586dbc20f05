/**
 * Money and checkout fees, in integer minor units (paise for INR): no float ever holds a sum.
 * Pure: no I/O.
 */

/** A payment method of the spec. */
export type PaymentMethod = "upi_direct" | "gateway";
/** How a `gateway` payment is made; it selects the fee rate. */
export type GatewayMethod = "card" | "upi" | "wallet";

/** Fee rates in basis points (1 bp = 0.01 %), spec 4.1. */
export const CHECKOUT_FEE_RATES_BP = {
  upi_direct: 0,
  gateway: { card: 250, upi: 200, wallet: 200 },
} as const;

/** The largest amount numeric(12,2) holds, in minor units. */
export const MAX_AMOUNT_MINOR = 999_999_999_999;

/**
 * The minor amount a submitted price above numeric(12,2) travels as: the first one beyond the catalogue's
 * range, which no catalogue price equals, so the catalogue answers PRICE_MISMATCH (after any 404).
 */
export const ABOVE_CATALOGUE_MINOR = MAX_AMOUNT_MINOR + 1;

const TWO_DECIMALS = /^\d+(\.\d{1,2})?$/;

/**
 * Whether `amount` is a price a request may carry: a finite number >= 0 with at most 2 decimals, of any
 * size. A number too large for plain decimal notation (1e21 and up) is whole, so it has none.
 */
export function isPrice(amount: number): boolean {
  return Number.isFinite(amount) && amount >= 0 &&
    (Number.isInteger(amount) || TWO_DECIMALS.test(String(amount)));
}

/**
 * Converts a non-negative amount with at most two decimals to minor units exactly, from its decimal
 * text (19.99 -> 1999, never 1998.9999). Returns null for anything else (3 decimals, negative,
 * exponent notation, above numeric(12,2)).
 */
export function toMinorUnits(amount: number): number | null {
  if (!Number.isFinite(amount) || amount < 0) return null;
  const text = String(amount);
  if (!TWO_DECIMALS.test(text)) return null;
  const [whole, fraction = ""] = text.split(".");
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return minor <= MAX_AMOUNT_MINOR ? minor : null;
}

/**
 * A submitted unit price ({@linkcode isPrice}) in minor units, for the comparison with the catalogue: exact
 * within numeric(12,2), {@linkcode ABOVE_CATALOGUE_MINOR} above it (no catalogue price can be that large).
 */
export function submittedPriceMinor(price: number): number {
  return toMinorUnits(price) ?? ABOVE_CATALOGUE_MINOR;
}

/** Minor units as the JSON number of the response (1999 -> 19.99). */
export function fromMinorUnits(minor: number): number {
  return minor / 100;
}

/** The fee rate in basis points for a payment method (and gateway sub-method). */
export function checkoutFeeRateBp(method: PaymentMethod, gatewayMethod: GatewayMethod | null): number {
  return method === "gateway"
    ? CHECKOUT_FEE_RATES_BP.gateway[gatewayMethod ?? "card"]
    : CHECKOUT_FEE_RATES_BP.upi_direct;
}

/**
 * Rounds `numerator / denominator` half up (away from zero at an exact half) for non-negative integers:
 * the one rounding rule of the service (0.005 -> 0.01).
 */
export function divideRoundHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/** The checkout fee in minor units: total x rate, rounded half up to the minor unit. */
export function calculateCheckoutFee(
  totalMinor: number,
  method: PaymentMethod,
  gatewayMethod: GatewayMethod | null = null,
): number {
  return divideRoundHalfUp(totalMinor * checkoutFeeRateBp(method, gatewayMethod), 10_000);
}

/** An order line for pricing. */
export interface PricedLine {
  unitPriceMinor: number;
  quantity: number;
}

/** The amounts of an order, in minor units. */
export interface OrderAmounts {
  totalMinor: number;
  feeMinor: number;
  finalMinor: number;
}

/** totalAmount = sum of price x quantity; checkoutFee per method; finalAmount = total + fee. */
export function priceOrder(
  lines: readonly PricedLine[],
  method: PaymentMethod,
  gatewayMethod: GatewayMethod | null = null,
): OrderAmounts {
  const totalMinor = lines.reduce((sum, line) => sum + line.unitPriceMinor * line.quantity, 0);
  const feeMinor = calculateCheckoutFee(totalMinor, method, gatewayMethod);
  return { totalMinor, feeMinor, finalMinor: totalMinor + feeMinor };
}
