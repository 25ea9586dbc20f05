/**
 * The currencies a store may be priced in: the ISO 4217 codes in current use (list one of the standard, as
 * its maintenance agency publishes it in 2026) whose minor unit is the hundredth. Money is kept in
 * hundredths everywhere in this service (numeric(12,2) in SQL, integer minor units in TypeScript, two
 * decimals in every e-mail), so a currency of whole units (JPY, KRW, XOF) or thousandths (KWD, BHD) would be
 * priced and shown wrongly. Left out besides: fund codes (BOV, CHE, CHW, COU, MXV, USN), precious metals,
 * SDR and test codes (XAU, XDR, XTS, XXX), and codes withdrawn (HRK, BGN, SLL, ZWL, ANG, CUC). Pure.
 */

/** The codes, in order. */
export const STORE_CURRENCIES: ReadonlySet<string> = new Set(
  `AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP CRC
  CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR
  JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD
  NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN
  SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * How the import's messages name an amount in `currency`: "rupees" for INR (the file's usual case, and
 * the word its sellers use), else the code itself.
 */
export function currencyWord(currency: string): string {
  return currency === "INR" ? "rupees" : currency;
}
