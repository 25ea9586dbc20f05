/**
 * `deno task store:add --name <name> --owner-email <e-mail> [--currency INR] [--time-zone Asia/Kolkata]`:
 * adds a store to the database at DATABASE_URL (else the local stack's) and prints its id on stdout, alone
 * on its line (`STORE_ID=$(… task store:add …)`); what it did goes to stderr. The same name and owner
 * twice is one store. Exit 2 with a sentence for input it refuses.
 */
import { INACTIVE_STORE_NOTE } from "./catalogue_notes.ts";
import { addStore, StoreInputError } from "./store_add.ts";
import { parseTaskFlags, TaskUsageError } from "./task_flags.ts";
import { describeDatabase, openTaskDatabase } from "./task_database.ts";

const USAGE =
  "deno task store:add --name <name> --owner-email <e-mail> [--currency INR] [--time-zone Asia/Kolkata]";

if (import.meta.main) {
  try {
    const { flags, positional } = parseTaskFlags(
      Deno.args,
      ["name", "owner-email", "currency", "time-zone"],
      USAGE,
    );
    if (positional.length > 0) throw new TaskUsageError(`unexpected ${positional[0]}: ${USAGE}`);
    if (flags.name === undefined || flags["owner-email"] === undefined) {
      throw new TaskUsageError(`--name and --owner-email are required: ${USAGE}`);
    }
    const url = Deno.env.get("DATABASE_URL");
    const db = await openTaskDatabase("store:add", url);
    try {
      const store = await addStore(db, {
        name: flags.name,
        ownerEmail: flags["owner-email"],
        currency: flags.currency,
        timeZone: flags["time-zone"],
      });
      const facts = `owner ${store.ownerEmail}, ${store.currency}, ${store.timeZone}${
        store.isActive ? "" : `, ${INACTIVE_STORE_NOTE}`
      }`;
      console.error(
        store.added
          ? `store:add: added ${JSON.stringify(store.name)} (${facts}) to ${describeDatabase(url)}`
          : `store:add: ${JSON.stringify(store.name)} exists already (${facts}) in ${describeDatabase(url)}`,
      );
      console.log(store.id);
    } finally {
      await db.close();
    }
  } catch (error) {
    if (!(error instanceof TaskUsageError || error instanceof StoreInputError)) throw error;
    console.error(`store:add: ${error.message}`);
    Deno.exit(2);
  }
}
