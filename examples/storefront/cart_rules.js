// The cart's rule for quantities, create-order's own (a quantity is a whole number from 1 to 10000): the
// field takes only such a number, no line of the cart ever holds more, and a line that breaks the rule
// anyway (or that the function refused) is named, so the page never prices or sends it unseen.

/** The most of one item (one line) an order takes. */
export const MAX_QUANTITY = 10_000;

const _RULE = `Enter a whole number from 1 to ${new Intl.NumberFormat("en-IN").format(MAX_QUANTITY)}`;

/**
 * The quantity a number field holds, or why it holds none: `{ quantity }` or `{ problem }`. What the
 * browser could not read as a number (`abc`) is no quantity, nor is 1.5, 0, -3 or 10001.
 */
export function readQuantity(input) {
  const text = input.value.trim();
  if (input.validity?.badInput || !/^[0-9]+$/.test(text)) return { problem: _RULE };
  const quantity = Number(text);
  return quantity >= 1 && quantity <= MAX_QUANTITY ? { quantity } : { problem: _RULE };
}

/** Why `more` of an item cannot join its line of `current` (null when it can). */
export function addingProblem(current, more) {
  if (current + more <= MAX_QUANTITY) return null;
  return `At most ${
    new Intl.NumberFormat("en-IN").format(MAX_QUANTITY)
  } of one item: your cart has ${current}`;
}

/** Why a cart line breaks the rule, in the buyer's words; null when it keeps it. */
export function lineProblem(line) {
  const { quantity } = line;
  return Number.isInteger(quantity) && quantity >= 1 && quantity <= MAX_QUANTITY
    ? null
    : `The quantity must be a whole number from 1 to ${MAX_QUANTITY}: remove this line`;
}

/** What the buyer is told of a line create-order refused, by the field its path names (`items.0.quantity`). */
export function refusedLineProblem(field) {
  return field === "quantity"
    ? `The quantity must be a whole number from 1 to ${MAX_QUANTITY}: remove this line and add it again`
    : "This line cannot be ordered as it is: remove it and add it again";
}
