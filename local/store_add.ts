/**
 * Adds a store (contract, "Going live"): its name, the owner's e-mail address (where the seller's e-mails
 * go), its currency and time zone. The same name and owner twice is one store: the second run finds the
 * first one's row and changes nothing.
 */
import { isEmailAddress } from "../supabase/functions/_shared/orders/email_address.ts";
import { STORE_CURRENCIES } from "./currencies.ts";
import { checkSellerName } from "./seller_text.ts";
import type { SqlDatabase } from "./sql_database.ts";

/** The longest store name in characters: the stores table's own check (`length(name)`). */
export const MAX_STORE_NAME_LENGTH = 200;

// the shape public.is_time_zone accepts (20261126250100_store_time_zone_names.sql): UTC, or Area/Location
const _TIME_ZONE =
  /^(?:UTC|(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)\/[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)?)$/;

/**
 * Whether `name` has the shape of a store's time zone, as public.is_time_zone's pattern says it: UTC or
 * an IANA Area/Location name, never posix/…, right/…, localtime, EST5EDT or Etc/GMT+5. Pure.
 */
export function hasStoreTimeZoneShape(name: string): boolean {
  return _TIME_ZONE.test(name);
}

/**
 * Whether `name` has the shape of a store's time zone ({@linkcode hasStoreTimeZoneShape}) and Intl takes
 * it: the pages and e-mails format dates with it. Whether the database knows it is the database's to say.
 */
export function isStoreTimeZoneShape(name: string): boolean {
  if (!hasStoreTimeZoneShape(name)) return false;
  try {
    new Intl.DateTimeFormat("en-IN", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function _timeZoneProblem(timeZone: string): string {
  return `--time-zone must be an IANA time zone name of the form Area/Location such as Asia/Kolkata, or UTC: got ${
    JSON.stringify(timeZone)
  }`;
}

/** A store to add, as the task's flags give it. */
export interface StoreInput {
  name: string;
  ownerEmail: string;
  /** Unset: INR, or what the existing store has. */
  currency?: string;
  /** Unset: Asia/Kolkata, or what the existing store has. */
  timeZone?: string;
}

/** A store the task added or found. */
export interface StoreRow {
  id: string;
  name: string;
  ownerEmail: string;
  currency: string;
  timeZone: string;
  isActive: boolean;
  /** false: the store was there already. */
  added: boolean;
}

/** Input the task refuses, each problem named by its flag. */
export class StoreInputError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "StoreInputError";
  }
}

/** Checks and normalises the input (the text rule for the name, the contract's e-mail shape). Pure. */
export function checkStoreInput(input: StoreInput): StoreInput {
  const problems: string[] = [];
  const name = checkSellerName(input.name, MAX_STORE_NAME_LENGTH);
  if (!name.ok) problems.push(`--name ${name.problem}`);
  const ownerEmail = input.ownerEmail.trim();
  if (!isEmailAddress(ownerEmail)) {
    problems.push(
      `--owner-email must be an e-mail address such as owner@shop.example: got ${JSON.stringify(ownerEmail)}`,
    );
  }
  if (input.currency !== undefined && !STORE_CURRENCIES.has(input.currency)) {
    problems.push(
      `--currency must be an ISO 4217 code in use, in capitals, whose money has two decimals, such as INR ` +
        `or USD: got ${JSON.stringify(input.currency)}`,
    );
  }
  if (input.timeZone !== undefined && !isStoreTimeZoneShape(input.timeZone)) {
    problems.push(_timeZoneProblem(input.timeZone));
  }
  if (problems.length > 0) throw new StoreInputError(problems);
  return { ...input, name: name.ok ? name.text : "", ownerEmail };
}

interface _Row {
  id: string;
  name: string;
  owner_email: string;
  currency: string;
  time_zone: string;
  is_active: boolean;
}

function _store(row: _Row, added: boolean): StoreRow {
  return {
    id: row.id,
    name: row.name,
    ownerEmail: row.owner_email,
    currency: row.currency,
    timeZone: row.time_zone,
    isActive: row.is_active,
    added,
  };
}

const COLUMNS = "id::text, name, owner_email, currency, time_zone, is_active";

/**
 * Adds the store unless one with the same name and owner (the address in any letter case) exists, and
 * returns it. An existing store whose currency or time zone differs from one given is refused rather than
 * changed: a store's orders are priced and dated in them.
 */
export async function addStore(db: SqlDatabase, raw: StoreInput): Promise<StoreRow> {
  const input = checkStoreInput(raw);
  const [{ role }] = await db.query<{ role: string }>("select current_user::text as role");
  return await db.asRole(role, async (session) => {
    // two runs at once would both find nothing and add two stores
    await session.query("select pg_advisory_xact_lock(hashtextextended('store:add', 0))");
    if (input.timeZone !== undefined) {
      const [{ known }] = await session.query<{ known: boolean }>("select public.is_time_zone($1) as known", [
        input.timeZone,
      ]);
      if (!known) throw new StoreInputError([_timeZoneProblem(input.timeZone)]);
    }
    const existing = await session.query<_Row>(
      `select ${COLUMNS} from public.stores where name = $1 and lower(owner_email) = lower($2) order by created_at`,
      [input.name, input.ownerEmail],
    );
    if (existing.length > 1) {
      throw new StoreInputError([
        `${existing.length} stores are named ${JSON.stringify(input.name)} with owner ${input.ownerEmail}: ${
          existing.map((row) => row.id).join(", ")
        }; use one of them`,
      ]);
    }
    if (existing.length === 1) {
      const [row] = existing;
      const differences = [
        input.currency !== undefined && input.currency !== row.currency ? `currency ${row.currency}` : null,
        input.timeZone !== undefined && input.timeZone !== row.time_zone
          ? `time zone ${row.time_zone}`
          : null,
      ].filter((difference) => difference !== null);
      if (differences.length > 0) {
        throw new StoreInputError([
          `the store ${JSON.stringify(row.name)} of ${row.owner_email} exists (${row.id}) with ${
            differences.join(" and ")
          }: its orders are priced and dated in them, so this task does not change them`,
        ]);
      }
      return _store(row, false);
    }
    const [row] = await session.query<_Row>(
      `insert into public.stores (name, owner_email, currency, time_zone)
       values ($1, $2, coalesce($3, 'INR'), coalesce($4, 'Asia/Kolkata')) returning ${COLUMNS}`,
      [input.name, input.ownerEmail, input.currency ?? null, input.timeZone ?? null],
    );
    return _store(row, true);
  });
}
