// The amount to pay, fee included, shown before the order is placed: the cart's lines at the catalogue's
// prices and the chosen method, priced by the client's quoteOrder (create-order's own fee rules), so the
// page shows what the order then costs, and the cart's subtotal is the same quote's. The payment options
// name their fee from the same rules.
import { quoteOrder } from "create-order-client";
import { lineProblem } from "./cart_rules.js";

/** The fee's name per choice of the payment select (`gateway:<method>` or `upi_direct`). */
const FEE_NAMES = {
  "gateway:card": "Card payment fee",
  "gateway:upi": "UPI payment fee",
  "gateway:wallet": "Wallet payment fee",
  upi_direct: "UPI transfer fee",
};

/** The payment method and gateway method of a choice of the payment select. */
export function paymentChoice(value) {
  const [paymentMethod, gatewayMethod = null] = value.split(":");
  return { paymentMethod, gatewayMethod };
}

/** A fee rate in basis points as people read it: 250 → "2.5 %". */
function percent(rateBp) {
  return `${new Intl.NumberFormat("en-IN", { maximumFractionDigits: 2 }).format(rateBp / 100)} %`;
}

/** The rate of a choice, from the fee rules themselves (an empty cart costs nothing, at that rate). */
function rateOf(value) {
  const { paymentMethod, gatewayMethod } = paymentChoice(value);
  return quoteOrder([], paymentMethod, gatewayMethod).feeRateBp;
}

/** Appends each payment option's fee to its label: "Card (2.5 % fee)", "UPI transfer to the shop (no fee)". */
export function labelPaymentOptions(select) {
  for (const option of select.options) {
    const rateBp = rateOf(option.value);
    option.textContent = `${option.textContent} (${rateBp === 0 ? "no fee" : `${percent(rateBp)} fee`})`;
  }
}

/**
 * The cart's amounts for a choice of the payment select: `quoteOrder`'s, or null when a line breaks the
 * rule of quantities (cart_rules.js) or a price cannot be priced. Never throws: an amount shown is the
 * cart's, or none.
 */
export function quoteCart(cart, paymentValue) {
  if (cart.some((line) => lineProblem(line) !== null)) return null;
  const { paymentMethod, gatewayMethod } = paymentChoice(paymentValue);
  try {
    return quoteOrder(
      cart.map((line) => ({ price: line.unitPrice, quantity: line.quantity })),
      paymentMethod,
      gatewayMethod,
    );
  } catch {
    return null;
  }
}

/**
 * Shows the cart's subtotal, the chosen method's fee (named, with its rate) and the amount to pay in
 * `#amounts`, all from one quote, and returns that quote; a dash for each while the cart is empty or holds
 * a line that cannot be priced (that line is marked in the cart). `money` formats an amount in the store's
 * currency.
 */
export function renderAmountToPay(cart, paymentValue, money) {
  const quote = cart.length === 0 ? null : quoteCart(cart, paymentValue);
  document.querySelector("#fee-label").textContent = `${FEE_NAMES[paymentValue]} (${
    percent(rateOf(paymentValue))
  })`;
  document.querySelector("#amount-subtotal").textContent = quote ? money(quote.totalAmount) : "–";
  document.querySelector("#amount-fee").textContent = quote ? money(quote.checkoutFee) : "–";
  document.querySelector("#amount-to-pay").textContent = quote ? money(quote.finalAmount) : "–";
  return quote;
}
