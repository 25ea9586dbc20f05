/** Min, median and max over a bench's repeated runs. */

/** The spread of one figure over the runs. */
export interface Spread3 {
  min: number;
  median: number;
  max: number;
  runs: number[];
}

/** Min/median/max of `values` (the median of an even count is the mean of the middle two). */
export function summarize(values: number[]): Spread3 {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1], runs: values };
}

/** A number rounded to `digits` decimals. */
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** "median (min–max)" for a table cell; a single run prints alone. */
export function cell(s: Spread3, digits = 0): string {
  const f = (v: number) => round(v, digits).toLocaleString("en-US", { maximumFractionDigits: digits });
  return s.runs.length > 1 ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median);
}
