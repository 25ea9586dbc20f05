/**
 * PRICE_MISMATCH names each wrong item's price as the request carried it. The database compares minor units
 * and reports the submitted price from them, which for a price above numeric(12,2) is not the number sent (it
 * travels as ABOVE_CATALOGUE_MINOR, money.ts): the request's own number replaces it. Pure.
 */
import { OrderError } from "../_shared/errors.ts";

/** `error` with each PRICE_MISMATCH detail's `submittedPrice` taken from `items[detail.index]`; any other error as is. */
export function withSubmittedPrices(error: unknown, items: readonly { submittedPrice: number }[]): unknown {
  if (!(error instanceof OrderError) || error.code !== "PRICE_MISMATCH" || !Array.isArray(error.details)) {
    return error;
  }
  const details = error.details.map((detail: { index?: unknown } | null) => {
    const item = typeof detail?.index === "number" ? items[detail.index] : undefined;
    return item ? { ...detail, submittedPrice: item.submittedPrice } : detail;
  });
  return new OrderError(error.code, error.message, { details, headers: error.headers, cause: error.cause });
}
