/** Money for people: integer minor units rendered in the store's currency and locale. */

/** The locale an amount in `currency` is written in: Indian grouping (1,00,000.00) for INR. */
export function moneyLocale(currency: string): string {
  return currency.toUpperCase() === "INR" ? "en-IN" : "en";
}

/**
 * Formats an integer amount of minor units (hundredths: paise for INR, as everywhere in this service)
 * with `Intl.NumberFormat`, e.g. `formatMoney(104700, "INR")` is `₹1,047.00`. The amount reaches Intl as
 * an exact decimal string, so no float ever holds it.
 */
export function formatMoney(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) {
    throw new RangeError(`amount must be an integer of minor units: got ${minor}`);
  }
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  const decimal = `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
  // Intl accepts a decimal string (ES2023) and keeps every digit; the cast is for older lib typings.
  return _moneyFormat(currency.toUpperCase()).format(decimal as unknown as number);
}

// Building an Intl formatter costs far more than using one (it was 28 % of the service's CPU under load):
// one per currency, kept for the life of the process.
const _formats = new Map<string, Intl.NumberFormat>();

function _moneyFormat(currency: string): Intl.NumberFormat {
  let format = _formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(moneyLocale(currency), {
      style: "currency",
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    _formats.set(currency, format);
  }
  return format;
}
