/**
 * `quoteOrder(items, paymentMethod, gatewayMethod)`: what an order will cost before it is placed, computed
 * by the very fee rules create-order prices with (`supabase/functions/_shared/orders/money.ts`, which the
 * build bundles in): Σ price × quantity in paise, the method's fee rounded half up to the paisa, and their
 * sum. With the catalogue's current prices it equals the order's own `totalAmount`, `checkoutFee` and
 * `finalAmount`.
 */
import {
  checkoutFeeRateBp,
  fromMinorUnits,
  priceOrder,
  toMinorUnits,
} from "../supabase/functions/_shared/orders/money.ts";
import type { GatewayMethod, OrderItem, PaymentMethod } from "./order_types.ts";

/** The amounts of an order to come, in the store's currency as create-order answers them. */
export interface OrderQuote {
  /** Σ price × quantity. */
  totalAmount: number;
  /** The payment method's fee on totalAmount, rounded half up to the paisa. */
  checkoutFee: number;
  /** totalAmount + checkoutFee: what the buyer will pay. */
  finalAmount: number;
  /** The method's fee rate in basis points (250 is 2.5 %), to name the fee. */
  feeRateBp: number;
}

/**
 * The amounts create-order will answer for `items` paid by `paymentMethod` (and, for `gateway`,
 * `gatewayMethod`, default `card`). Throws a TypeError for a price or quantity the function would refuse
 * (a price with more than 2 decimals, a quantity that is not a whole number from 1 to 10000).
 */
export function quoteOrder(
  items: readonly Pick<OrderItem, "price" | "quantity">[],
  paymentMethod: PaymentMethod,
  gatewayMethod: GatewayMethod | null = null,
): OrderQuote {
  const lines = items.map((item, index) => {
    const unitPriceMinor = toMinorUnits(item.price);
    if (unitPriceMinor === null) {
      throw new TypeError(
        `items[${index}].price must be an amount with at most 2 decimals: got ${item.price}`,
      );
    }
    if (
      !Number.isInteger(item.quantity) || item.quantity < 1 ||
      item.quantity > 10_000
    ) {
      throw new TypeError(
        `items[${index}].quantity must be an integer from 1 to 10000: got ${item.quantity}`,
      );
    }
    return { unitPriceMinor, quantity: item.quantity };
  });
  const method = paymentMethod === "gateway" ? gatewayMethod ?? "card" : null;
  const amounts = priceOrder(lines, paymentMethod, method);
  return {
    totalAmount: fromMinorUnits(amounts.totalMinor),
    checkoutFee: fromMinorUnits(amounts.feeMinor),
    finalAmount: fromMinorUnits(amounts.finalMinor),
    feeRateBp: checkoutFeeRateBp(paymentMethod, method),
  };
}
