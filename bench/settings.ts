/** The settings every load of the bench runs at: both spreads of stores, at 1, 8 and 32 clients. */
import type { Spread } from "./catalogue.ts";

/** Concurrencies of the pgbench and service runs. */
export const CLIENTS = [1, 8, 32] as const;
/** Both spreads, in table order. */
export const SPREADS: Spread[] = ["10 stores", "1 store"];

/** A value for every setting, by spread then clients; `value` receives the key `<spread>/<clients>`. */
export function bySetting<T>(value: (key: string) => T): Record<Spread, Record<number, T>> {
  const result = {} as Record<Spread, Record<number, T>>;
  for (const spread of SPREADS) {
    result[spread] = {};
    for (const clients of CLIENTS) result[spread][clients] = value(`${spread}/${clients}`);
  }
  return result;
}
